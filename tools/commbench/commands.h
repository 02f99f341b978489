// One function per subcommand (CLI11's subcommands-in-files pattern): each file owns its options struct, adds
// its subcommand to the app and sets the exit code from its callback. main.cc only wires them.
#pragma once

#include "tools/commbench/cli_fwd.h"

namespace commbench::cli {

// Exit codes: 0 success; 1 a run failed (wrong results, crashed or timed-out rank); 2 bad input.
void SetupSweep(CLI::App& app, int* exit_code);
void SetupRun(CLI::App& app, int* exit_code);
void SetupEnv(CLI::App& app, int* exit_code);
void SetupWorker(CLI::App& app, int* exit_code);
void SetupReport(CLI::App& app, int* exit_code);
void SetupCompare(CLI::App& app, int* exit_code);
void SetupGate(CLI::App& app, int* exit_code);
void SetupAccept(CLI::App& app, int* exit_code);
void SetupExport(CLI::App& app, int* exit_code);
void SetupHistory(CLI::App& app, int* exit_code);
void SetupTraffic(CLI::App& app, int* exit_code);
// Last: it walks the others.
void SetupHelp(CLI::App& app, int* exit_code);

}  // namespace commbench::cli
