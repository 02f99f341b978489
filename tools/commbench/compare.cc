// `commbench compare BASE.json NEW.json`: the new result against a baseline, point by point, from each point's
// independent repeats (lib/gate). Exit codes: 0 no regression, 1 a regression or a wrong result, 2 bad input,
// 3 inconclusive or incomparable. Every output path is checked before anything is read or written.
#include "lib/gate/compare.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "lib/core/output_paths.h"
#include "lib/result/result_file.h"
#include "tools/commbench/command_line.h"
#include "tools/commbench/commands.h"
#include "tools/commbench/comparison_outputs.h"

namespace commbench::cli {
namespace {

struct CompareOptions {
  std::string base, now;
  ComparisonFlags flags;
  gate::CompareOptions compare;
};

int RunCompare(CompareOptions o) {
  Status floors = ApplyComparisonFlags(o.flags, &o.compare);
  if (!floors.ok()) return ErrorExit(floors.message());
  const ComparisonOutputs& out = o.flags.outputs;
  Status writable = CheckOutputsApart(
      {{"--json", out.json}, {"--junit", out.junit}, {"--html", out.html}, {"--summary", out.summary}},
      {{"BASE", o.base}, {"NEW", o.now}});
  if (writable.ok()) writable = CheckComparisonOutputs(o.flags.outputs);
  if (!writable.ok()) return ErrorExit(writable.message());
  auto base = gate::LoadComparable(o.base);
  if (!base.ok()) return ErrorExit(base.status().message());
  auto now = gate::LoadComparable(o.now);
  if (!now.ok()) return ErrorExit(now.status().message());

  const gate::Comparison c = gate::Compare(*base, *now, o.compare);
  Status emitted = EmitComparison(c, o.flags.outputs, o.base, o.now, "compare");
  if (!emitted.ok()) return ErrorExit(emitted.message());
  return c.ExitCode();
}

}  // namespace

void SetupCompare(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<CompareOptions>();
  CLI::App* cmd = app.add_subcommand(
      "compare",
      "Compare a result against a baseline point by point from their repeats (sweep --repeats): exit 0 no "
      "regression, 1 regression or wrong result, 2 bad input, 3 inconclusive or incomparable.");
  cmd->add_option("base", o->base, "the baseline result JSON")->required();
  cmd->add_option("new", o->now, "the new result JSON")->required();
  AddComparisonFlags(cmd, &o->flags);
  cmd->callback([o, exit_code] { *exit_code = RunCompare(*o); });
}

}  // namespace commbench::cli
