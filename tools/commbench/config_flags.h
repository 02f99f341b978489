// `--config FILE` for the subcommands that run sweeps (sweep, gate): every flag can come from a YAML or JSON file
// (lib/config), and the command line wins over it. A key is a flag's long name without the dashes
// ("time-budget"; "time_budget" is the same key); a value is what the flag takes: a scalar, or a list for a flag
// that takes one (sizes: [400, 64K] is --sizes 400,64K; cpus: ["0", "0-1"] is --cpus 0 --cpus 0-1).
#pragma once

#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace commbench::cli {

// Applies `path` to the flags of `app` that the command line did not give, except those in `exclude` (long names
// without dashes; --help and --config are never keys). Returns every problem, one line each ("FILE:LINE: KEY:
// what is wrong (accepted: ...)"); nothing is applied unless there are none.
std::vector<std::string> ApplyConfigFile(const std::string& path, CLI::App* app,
                                         const std::set<std::string>& exclude = {});

}  // namespace commbench::cli
