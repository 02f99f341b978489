// The numeric flags' strict reading (tools/commbench/number_flags.h), through CLI11 as commbench parses them.
// The input is one flag value. Each kind of numeric flag either refuses it with a CLI11 parse error or holds
// exactly the number the text spells: decimal, in range, finite.
#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "tools/commbench/number_flags.h"

namespace {

struct Values {
  int64_t i64 = 0;
  int i32 = 0;
  uint64_t u64 = 0;
  double f = 0;
};

// True when `flag value` parsed; any exception but CLI11's parse errors escapes and fails the run.
bool Parse(const char* flag, const std::string& value, Values* v) {
  CLI::App app{"fuzz"};
  CLI::App* sub = app.add_subcommand("sweep");
  sub->add_option("--i64", v->i64);
  sub->add_option("--i32", v->i32);
  sub->add_option("--u64", v->u64);
  sub->add_option("--f", v->f);
  commbench::cli::RequireWellFormedNumbers(&app);
  std::vector<std::string> args{value, flag, "sweep"};  // CLI11 parses a vector back to front
  try {
    app.parse(args);
    return true;
  } catch (const CLI::ParseError&) {
    return false;
  }
}

// The integer `text` spells in plain decimal, if it does.
bool Decimal(const std::string& text, int64_t* out) {
  if (text.empty() || text.find_first_not_of("-0123456789") != std::string::npos) return false;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return error == std::errc() && end == text.data() + text.size();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  Values v;
  int64_t spelled = 0;
  const bool decimal = Decimal(text, &spelled);
  if (Parse("--i64", text, &v)) {
    FUZZ_CHECK(decimal && v.i64 == spelled, "an accepted int64 is the decimal number typed: '" + text + "'");
  }
  if (Parse("--i32", text, &v)) {
    FUZZ_CHECK(decimal && v.i32 == spelled, "an accepted int is the decimal number typed: '" + text + "'");
  }
  if (Parse("--u64", text, &v)) {
    FUZZ_CHECK(decimal && spelled >= 0 && v.u64 == static_cast<uint64_t>(spelled),
               "an accepted unsigned is the non-negative decimal typed: '" + text + "'");
  }
  if (Parse("--f", text, &v)) {
    char* end = nullptr;
    const double expected = static_cast<double>(std::strtold(text.c_str(), &end));
    FUZZ_CHECK(std::isfinite(v.f) && end == text.c_str() + text.size(),
               "an accepted float is finite and the whole text: '" + text + "'");
    FUZZ_CHECK(v.f == expected, "and the number the text spells: '" + text + "'");
  }
  return 0;
}
