#include "tools/commbench/command_line.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "lib/core/printable.h"
#include "lib/core/redact.h"
#include "lib/core/utf8.h"
#include "lib/rendezvous/redis_store.h"  // kRedisPasswordVariable
#include "tools/version.h"

namespace commbench::cli {

result::ToolInfo ToolIdentity() { return {"commbench", COMMBENCH_VERSION, COMMBENCH_COMMIT}; }

int ErrorExit(const std::string& message, int exit_code) {
  std::fprintf(stderr, "commbench: error: %s\n", Printable(ScrubSecrets(message)).c_str());
  return exit_code;
}

int ErrorLines(const std::string& message, int exit_code) {
  for (size_t start = 0; start <= message.size();) {
    const size_t nl = message.find('\n', start);
    ErrorExit(message.substr(start, nl - start), exit_code);
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return exit_code;
}

bool PathExists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

std::string CommandLine(int argc, char** argv) {
  return CommandLine(std::vector<std::string>(argv + std::min(argc, 1), argv + std::max(argc, 0)));
}

std::string CommandLine(const std::vector<std::string>& args) {
  std::string line = "commbench";
  for (std::string a : args) {
    bool plain = a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.,:/=+") ==
                 std::string::npos;
    if (!plain) {
      std::string quoted = "'";
      for (char c : a) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
      a = quoted + "'";
    }
    line += " " + a;
  }
  return line;
}

namespace {
// The flags whose value is a store URL, which may hold a password.
const std::vector<std::string> kStoreFlags = {"--rendezvous"};

// Set once by main() before any subcommand runs.
std::string& InvocationStorage() {
  static auto* line = new std::string("commbench");
  return *line;
}

// What RememberInvocation masked, and the password variable's value: a message that quotes one of them on its
// own (a parser's "unexpected argument 'b@h'") is scrubbed too.
std::vector<std::string>& KnownSecrets() {
  static auto* secrets = new std::vector<std::string>();
  return *secrets;
}
}  // namespace

// Recorded in result files and reports: a store password typed on the command line never reaches them (each
// argument redacted before they are joined, so that quoting cannot hide one), and bytes that are not UTF-8 are
// escaped, since a JSON writer refuses them.
void RememberInvocation(int argc, char** argv) {
  std::vector<std::string> args(argv + std::min(argc, 1), argv + std::max(argc, 0));
  std::vector<std::string>& secrets = KnownSecrets();
  secrets.clear();
  if (const char* password = std::getenv(kRedisPasswordVariable)) secrets.push_back(password);
  InvocationStorage() = ValidUtf8OrEscaped(CommandLine(RedactArguments(std::move(args), kStoreFlags, &secrets)));
}

std::string ScrubSecrets(const std::string& message) {
  return MaskKnownSecrets(RedactSecrets(message), KnownSecrets());
}
const std::string& Invocation() { return InvocationStorage(); }

}  // namespace commbench::cli
