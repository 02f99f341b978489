// Runs a fuzz target without libFuzzer, for the test suite: every file of the seed corpora given on the command
// line, then mutations of them drawn from a fixed seed, for a few seconds or a number of runs, whichever ends
// first. It finds less than libFuzzer (no coverage feedback) but runs in the normal gcc build and keeps the
// targets and their seeds working. When the target aborts or crashes, the input is printed first.
//
//   <target>_test [--seconds=S] [--runs=N] [--seed=K] DIR_OR_FILE...
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

using Input = std::vector<uint8_t>;

// The input being run, for the crash handler.
const Input* g_current = nullptr;

// Async-signal-safe: writes the input as a C string literal, so it can be pasted into a seed file or a test.
void PrintCurrentInput(int signal_number) {
  static const char kHeader[] = "\nfuzz driver: the target crashed on this input (C-escaped):\n\"";
  (void)!write(STDERR_FILENO, kHeader, sizeof(kHeader) - 1);
  if (g_current != nullptr) {
    for (uint8_t byte : *g_current) {
      char buf[4];
      size_t n = 0;
      if (byte >= 0x20 && byte < 0x7f && byte != '"' && byte != '\\') {
        buf[n++] = static_cast<char>(byte);
      } else {
        const char* hex = "0123456789abcdef";
        buf[n++] = '\\';
        buf[n++] = 'x';
        buf[n++] = hex[byte >> 4];
        buf[n++] = hex[byte & 15];
      }
      (void)!write(STDERR_FILENO, buf, n);
    }
  }
  (void)!write(STDERR_FILENO, "\"\n", 2);
  signal(signal_number, SIG_DFL);
  raise(signal_number);
}

Input ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return Input(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Byte strings that readers of our formats branch on: JSON syntax, our keys' shapes, range syntax, numbers at
// the edges of the types.
const std::vector<std::string>& Tokens() {
  // Hand-aligned: clang-format would break these short lines apart.
  // clang-format off
  static const std::vector<std::string> tokens = {
      "{", "}", "[", "]", ",", ":", "\"", "null", "true", "false", "0", "-1", "1e308", "-1e308", "1e-320",
      "18446744073709551615", "9223372036854775807", "-9223372036854775808", "4294967296", "2147483648",
      "..", ":x", ":+", "x2", "+1", "K", "M", "G", "T", "iB", "-", ";", "\\u0000", "\\ud800", "\xff", " ", "\n"};
  // clang-format on
  return tokens;
}

// One to four random edits: flip, insert, erase, duplicate a range, insert a token, or splice in another seed.
Input Mutate(const Input& base, const std::vector<Input>& corpus, std::mt19937_64& rng) {
  Input out = base;
  auto below = [&rng](size_t n) { return n == 0 ? size_t{0} : static_cast<size_t>(rng() % n); };
  const size_t edits = 1 + below(4);
  for (size_t e = 0; e < edits; ++e) {
    const size_t at = below(out.size() + 1);
    switch (below(6)) {
      case 0:
        if (!out.empty()) out[below(out.size())] ^= static_cast<uint8_t>(1u << below(8));
        break;
      case 1:
        out.insert(out.begin() + at, static_cast<uint8_t>(rng()));
        break;
      case 2:
        if (at < out.size())
          out.erase(out.begin() + at, out.begin() + at + 1 + below(std::min<size_t>(16, out.size() - at)));
        break;
      case 3:
        if (at < out.size()) {
          const size_t len = 1 + below(std::min<size_t>(64, out.size() - at));
          Input copy(out.begin() + at, out.begin() + at + len);
          out.insert(out.begin() + below(out.size() + 1), copy.begin(), copy.end());
        }
        break;
      case 4: {
        const std::string& token = Tokens()[below(Tokens().size())];
        out.insert(out.begin() + at, token.begin(), token.end());
        break;
      }
      default: {
        const Input& other = corpus[below(corpus.size())];
        if (other.empty()) break;
        const size_t from = below(other.size());
        const size_t len = 1 + below(std::min<size_t>(256, other.size() - from));
        out.insert(out.begin() + at, other.begin() + from, other.begin() + from + len);
        break;
      }
    }
  }
  if (out.size() > 1 << 16) out.resize(1 << 16);
  return out;
}

void Run(const Input& input) {
  g_current = &input;
  LLVMFuzzerTestOneInput(input.data(), input.size());
  g_current = nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 2;
  uint64_t max_runs = 200000;
  uint64_t seed = 1;
  std::vector<Input> corpus;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--seconds=", 0) == 0) {
      seconds = std::atof(arg.c_str() + 10);
    } else if (arg.rfind("--runs=", 0) == 0) {
      max_runs = std::strtoull(arg.c_str() + 7, nullptr, 10);
    } else if (arg.rfind("--seed=", 0) == 0) {
      seed = std::strtoull(arg.c_str() + 7, nullptr, 10);
    } else if (std::filesystem::is_directory(arg)) {
      for (const auto& entry : std::filesystem::recursive_directory_iterator(arg)) {
        if (entry.is_regular_file()) corpus.push_back(ReadFile(entry.path()));
      }
    } else if (std::filesystem::is_regular_file(arg)) {
      corpus.push_back(ReadFile(arg));
    } else {
      std::fprintf(stderr, "fuzz driver: no such file or directory: %s\n", arg.c_str());
      return 2;
    }
  }
  for (int s : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL}) signal(s, PrintCurrentInput);

  corpus.push_back({});  // the empty input is always worth one run
  for (const Input& input : corpus) Run(input);

  std::mt19937_64 rng(seed);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  uint64_t runs = 0;
  while (runs < max_runs && std::chrono::steady_clock::now() < deadline) {
    const Input mutated = Mutate(corpus[rng() % corpus.size()], corpus, rng);
    Run(mutated);
    ++runs;
  }
  std::printf("fuzz driver: %zu seed inputs and %llu mutations (seed %llu), no failure\n", corpus.size(),
              static_cast<unsigned long long>(runs), static_cast<unsigned long long>(seed));
  return 0;
}
