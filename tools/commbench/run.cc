#include <CLI/CLI.hpp>
#include <memory>

#include "tools/commbench/command_line.h"
#include "tools/commbench/commands.h"
#include "tools/commbench/execute.h"
#include "tools/commbench/sweep_flags.h"

namespace commbench::cli {

namespace {

struct RunOptions {
  SweepFlags sweep;
  OutputFlags output;
};

// `run` measures one point: every axis must hold exactly one value.
Status RequireSinglePoint(const SweepSpec& s) {
  auto one = [](size_t n, const char* flag) {
    return n == 1 ? OkStatus()
                  : InvalidArgument(std::string(flag) + ": `run` measures one point and takes one value (given " +
                                    std::to_string(n) + "); use `sweep` for lists");
  };
  RETURN_IF_ERROR(one(s.backends.size(), "--backends"));
  RETURN_IF_ERROR(one(s.ops.size(), "--ops"));
  RETURN_IF_ERROR(one(s.algos.size(), "--algos"));
  RETURN_IF_ERROR(one(s.dtypes.size(), "--dtypes"));
  RETURN_IF_ERROR(one(s.reduces.size(), "--reduce"));
  RETURN_IF_ERROR(one(s.sizes.size(), "--sizes"));
  RETURN_IF_ERROR(one(s.groups.size(), "--groups"));
  RETURN_IF_ERROR(one(s.group_sizes.size(), "--group-size"));
  RETURN_IF_ERROR(one(s.syncs.size(), "--sync"));
  RETURN_IF_ERROR(one(s.concurrencies.size(), "--concurrency"));
  RETURN_IF_ERROR(one(s.ranks_per_process.size(), "--ranks-per-process"));
  RETURN_IF_ERROR(one(s.pins.size(), "--pin"));
  RETURN_IF_ERROR(one(s.cpus.size(), "--cpus"));
  RETURN_IF_ERROR(one(s.streams.size(), "--stream"));
  RETURN_IF_ERROR(one(s.h2ds.size(), "--h2d"));
  RETURN_IF_ERROR(one(s.graphs.size(), "--graph"));
  return OkStatus();
}

}  // namespace

void SetupRun(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<RunOptions>();
  options->sweep.groups = "1";
  options->sweep.sizes = "400";
  CLI::App* sub = app.add_subcommand("run", "Measure one point (one value per axis) and write JSON");
  sub->footer(
      "Examples:\n"
      "  commbench run                                   # 1 group of 2 ranks, 400 B f32 sum allreduce over Gloo\n"
      "  commbench run --groups 8 --sizes 1M --algos halving_doubling --iters 1024");
  AddSweepFlags(sub, &options->sweep);
  AddOutputFlags(sub, &options->output);
  sub->callback([options, exit_code] {
    auto spec = ToSpec(options->sweep);
    Status single = spec.ok() ? RequireSinglePoint(*spec) : spec.status();
    if (!single.ok()) {
      std::fprintf(stderr, "commbench: error: %s\n", ScrubSecrets(single.message()).c_str());
      *exit_code = 2;
      return;
    }
    *exit_code = ExecuteSweep(*spec, options->output, Invocation());
  });
}

}  // namespace commbench::cli
