#include "tools/commbench/command_line.h"

#include <sys/stat.h>

#include <cstdio>

#include "tools/version.h"

#include "lib/rendezvous/redis_store.h"

namespace commbench::cli {

result::ToolInfo ToolIdentity() { return {"commbench", COMMBENCH_VERSION, COMMBENCH_COMMIT}; }

int ErrorExit(const std::string& message, int exit_code) {
  std::fprintf(stderr, "commbench: error: %s\n", message.c_str());
  return exit_code;
}

bool PathExists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

std::string CommandLine(int argc, char** argv) {
  std::string line = "commbench";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
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
// Set once by main() before any subcommand runs.
std::string& InvocationStorage() {
  static auto* line = new std::string("commbench");
  return *line;
}
}  // namespace

// Recorded in result files and reports: a store password typed on the command line never reaches them.
void RememberInvocation(int argc, char** argv) { InvocationStorage() = RedactSecrets(CommandLine(argc, argv)); }
const std::string& Invocation() { return InvocationStorage(); }

}  // namespace commbench::cli
