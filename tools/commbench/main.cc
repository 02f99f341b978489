#include <cstdio>

#include <CLI/CLI.hpp>

#include "tools/commbench/commands.h"
#include "tools/commbench/execute.h"

int main(int argc, char** argv) {
  CLI::App app{"commbench: sweep and diagnose collective communication (allreduce, allgather, reduce-scatter)."};
  app.require_subcommand(1);
  app.set_version_flag("--version", COMMBENCH_VERSION);
  int exit_code = 0;
  commbench::cli::RememberInvocation(argc, argv);
  commbench::cli::SetupSweep(app, &exit_code);
  commbench::cli::SetupRun(app, &exit_code);
  commbench::cli::SetupEnv(app, &exit_code);
  commbench::cli::SetupWorker(app, &exit_code);
  commbench::cli::SetupReport(app, &exit_code);
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
    std::fprintf(stderr, "commbench: error: %s (see --help)\n", e.what());
    return 2;
  }
  return exit_code;
}
