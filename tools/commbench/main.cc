#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>

#include "lib/core/current_exception.h"
#include "lib/core/printable.h"
#include "tools/commbench/command_line.h"
#include "tools/commbench/commands.h"
#include "tools/commbench/execute.h"
#include "tools/commbench/number_flags.h"
#include "tools/commbench/parse_errors.h"
#include "tools/version.h"

namespace {

// CLI11 would only say "A subcommand is required" for a mistyped one. Returns the listed subcommands when
// `word` is none of them (hidden ones included), else "".
std::string UnknownSubcommand(const CLI::App& app, const std::string& word) {
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_name() == word) return "";
  }
  return commbench::cli::ListedSubcommands(app);
}

// An exception that escapes a thread (where main's catch cannot see it) still ends in one error line and exit 1,
// not in abort's exit 134. Temporary files it leaves are removed by the next run's writer (lib/core/leftovers.h).
[[noreturn]] void OneLineTerminate() {
  std::string what = "internal error: std::terminate";
  if (std::exception_ptr current = std::current_exception()) {
    try {
      std::rethrow_exception(current);
    } catch (...) {
      what = commbench::CurrentExceptionText();
    }
  }
  std::fprintf(stderr, "commbench: error: %s\n", commbench::cli::ScrubSecrets(commbench::Printable(what)).c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  std::set_terminate(OneLineTerminate);
  // Under `bazel run`, relative paths (--out, --html) mean the user's directory, not the runfiles tree.
  if (const char* dir = std::getenv("BUILD_WORKING_DIRECTORY")) {
    if (chdir(dir) != 0) std::perror(dir);
  }
  CLI::App app{"commbench: sweep and diagnose collective communication."};
  app.name("commbench");
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(COMMBENCH_VERSION) + " (" + COMMBENCH_COMMIT + ")");
  int exit_code = 0;
  commbench::cli::RememberInvocation(argc, argv);
  commbench::cli::SetupSweep(app, &exit_code);
  commbench::cli::SetupRun(app, &exit_code);
  commbench::cli::SetupEnv(app, &exit_code);
  commbench::cli::SetupWorker(app, &exit_code);
  commbench::cli::SetupReport(app, &exit_code);
  commbench::cli::SetupCompare(app, &exit_code);
  commbench::cli::SetupGate(app, &exit_code);
  commbench::cli::SetupAccept(app, &exit_code);
  commbench::cli::SetupExport(app, &exit_code);
  commbench::cli::SetupHistory(app, &exit_code);
  commbench::cli::SetupTraffic(app, &exit_code);
  commbench::cli::SetupHelp(app, &exit_code);
  commbench::cli::RequireWellFormedNumbers(&app);
  if (argc > 1 && argv[1][0] != '-') {
    std::string accepted = UnknownSubcommand(app, argv[1]);
    if (!accepted.empty()) {
      return commbench::cli::ErrorExit("unknown subcommand '" + commbench::Printable(argv[1]) +
                                       "' (accepted: " + accepted + ")");
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line, exit code 2, as for every other bad input.
    return commbench::cli::ErrorExit(commbench::cli::ExplainParseError(app, e), 2);
  } catch (const std::invalid_argument& e) {  // a value no parser caught (std::stoi and the like): bad input
    return commbench::cli::ErrorExit(commbench::Printable(e.what()), 2);
  } catch (...) {
    // Anything else a subcommand let out (std::bad_alloc, a library's exception) is one error line, not
    // std::terminate: unwinding runs the destructors that remove temporary files.
    return commbench::cli::ErrorExit(commbench::Printable(commbench::CurrentExceptionText()), 1);
  }
  return exit_code;
}
