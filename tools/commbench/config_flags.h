// `--config FILE` for the subcommands that run sweeps (sweep, gate): every flag can come from a YAML or JSON file
// (lib/config), and the command line wins over it. A key is a flag's long name without the dashes
// ("time-budget"; "time_budget" is the same key); a value is what the flag takes: a scalar, or a list for a flag
// that takes one (sizes: [400, 64K] is --sizes 400,64K; cpus: ["0", "0-1"] is --cpus 0 --cpus 0-1).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "tools/commbench/cli_fwd.h"

namespace commbench::cli {

//
// One file can serve `sweep` and `gate` (configs/gate/*.yaml): the top level holds the sweep's flags, and the
// mapping under `gate:` the gate's own (min-effect, junit, ...), which `sweep` skips.
struct ConfigScope {
  bool own_section = false;             // this command reads the `gate:` section (else it skips it)
  std::set<std::string> section_flags;  // flags that only the section may set (long names without dashes)
};
inline constexpr const char* kConfigSection = "gate";

// Applies `path` to the flags of `app` that the command line did not give (--help and --config are never keys).
// Returns every problem, one line each ("FILE:LINE: KEY: what is wrong (accepted: ...)"); the command must not
// run when there is one.
std::vector<std::string> ApplyConfigFile(const std::string& path, CLI::App* app, const ConfigScope& scope = {});

}  // namespace commbench::cli
