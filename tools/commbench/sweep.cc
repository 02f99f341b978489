#include <CLI/CLI.hpp>
#include <memory>

#include "tools/commbench/command_line.h"
#include "tools/commbench/commands.h"
#include "tools/commbench/config_flags.h"
#include "tools/commbench/execute.h"
#include "tools/commbench/spmd_sweep.h"
#include "tools/commbench/sweep_flags.h"

namespace commbench::cli {

namespace {

struct SweepOptions {
  SweepFlags sweep;
  OutputFlags output;
  SpmdFlags spmd;
  std::string config;
};

}  // namespace

void SetupSweep(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<SweepOptions>();
  CLI::App* sub = app.add_subcommand(
      "sweep", "Run every combination of the axes, then the targeted A/Bs; write JSON and the HTML report");
  sub->footer(
      "Examples:\n"
      "  commbench sweep --groups 1..8                         # reference scenario A: Gloo pairs, 400 B .. 1 MiB\n"
      "  commbench sweep --groups 1,2,4,8 --sizes 4..64M:x4 --ops allreduce,allgather\n"  // names-ok: an example
      "  commbench sweep --groups 1..4 --sync none,world-barrier --algos ring,halving_doubling\n"
      "  commbench sweep --groups 4 --cpus '0;0-1'             # same point on one core and on two\n"
      "  commbench sweep --config configs/gate/ci.yaml --out baseline.json   # flags from a file; flags win\n"
      "  commbench sweep --groups 1..4 --no-explain --no-html  # the requested points only, JSON only");
  AddSweepFlags(sub, &options->sweep);
  AddOutputFlags(sub, &options->output, /*first_run=*/true);
  AddExportFlags(sub, &options->output.exports);
  AddSpmdFlags(sub, &options->spmd);
  sub->add_option("--config", options->config,
                  "YAML or JSON file of flags (groups: 1..4, sizes: [400, 64K]); the command line wins");
  sub->callback([options, exit_code, sub] {
    if (!options->config.empty()) {
      const std::vector<std::string> problems = ApplyConfigFile(options->config, sub);
      for (const std::string& p : problems) std::fprintf(stderr, "commbench: error: %s\n", ScrubSecrets(p).c_str());
      if (!problems.empty()) {
        *exit_code = 2;
        return;
      }
    }
    auto spec = ToSpec(options->sweep);
    if (!spec.ok()) {
      std::fprintf(stderr, "commbench: error: %s\n", ScrubSecrets(spec.status().message()).c_str());
      *exit_code = 2;
      return;
    }
    auto place = SpmdPlace(options->spmd, *spec);
    if (!place.ok()) {
      std::fprintf(stderr, "commbench: error: %s\n", ScrubSecrets(place.status().message()).c_str());
      *exit_code = 2;
      return;
    }
    // SPMD ranks keep only what was asked: rank 0 of a cluster job is no first look at a machine.
    if (!*place) ApplyFirstRunDefaults(&options->output);
    const OutputFlags& out = options->output;
    const Status apart = CheckOutputsApart({{"--out", out.out},
                                            {"--html", out.html},
                                            {"--prom", out.exports.prom},
                                            {"--csv", out.exports.csv},
                                            {"--trace", out.exports.trace}},
                                           {{"--config", options->config}});
    if (!apart.ok()) {
      std::fprintf(stderr, "commbench: error: %s\n", apart.message().c_str());
      *exit_code = 2;
      return;
    }
    if (*place) {
      *exit_code = ExecuteSpmdSweep(*spec, options->output, options->spmd, **place, Invocation());
      return;
    }
    *exit_code = ExecuteSweep(*spec, options->output, Invocation());
  });
}

}  // namespace commbench::cli
