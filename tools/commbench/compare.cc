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

#include "lib/result/result_file.h"
#include "tools/commbench/commands.h"
#include "tools/commbench/comparison_outputs.h"

namespace commbench::cli {
namespace {

struct CompareOptions {
  std::string base, now;
  ComparisonOutputs outputs;
  gate::CompareOptions compare;
  double min_effect = 0.05;
  std::vector<std::string> min_effect_below;
};

int Fail(const std::string& message) {
  std::fprintf(stderr, "commbench compare: error: %s\n", message.c_str());
  return 2;
}

int RunCompare(CompareOptions o) {
  Status floors = gate::SetMinEffects(o.min_effect, o.min_effect_below, &o.compare);
  if (!floors.ok()) return Fail(floors.message());
  Status writable = CheckComparisonOutputs(o.outputs);
  if (!writable.ok()) return Fail(writable.message());
  auto base = result::LoadResultFile(o.base);
  if (!base.ok()) return Fail(base.status().message());
  auto now = result::LoadResultFile(o.now);
  if (!now.ok()) return Fail(now.status().message());

  const gate::Comparison c = gate::Compare(*base, *now, o.compare);
  Status emitted = EmitComparison(c, o.outputs, o.base, o.now, "compare");
  if (!emitted.ok()) return Fail(emitted.message());
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
  cmd->add_option("--json", o->outputs.json, "write the comparison as JSON");
  cmd->add_option("--junit", o->outputs.junit, "write JUnit XML (one testcase per point)");
  cmd->add_option("--html", o->outputs.html,
                  "write one self-contained HTML page: the outcome, each ratio with its interval, before/after");
  cmd->add_option("--summary", o->outputs.summary, "append a markdown summary (also to $GITHUB_STEP_SUMMARY when set)");
  cmd->add_option("--min-effect", o->min_effect, "smallest relative change that counts as slower or faster")
      ->capture_default_str();
  cmd->add_option("--min-effect-below", o->min_effect_below,
                  "SIZE=FRACTION: another floor for points smaller than SIZE (e.g. 4K=0.1), repeatable");
  cmd->add_flag("--allow-env-drift", o->compare.allow_env_drift,
                "compare even when CPU, cores, versions or NCCL_/GLOO_/CUDA_/OMP_ variables differ");
  cmd->callback([o, exit_code] { *exit_code = RunCompare(*o); });
}

}  // namespace commbench::cli
