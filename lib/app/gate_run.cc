#include "lib/app/gate_run.h"

#include <utility>

#include "lib/core/atomic_file.h"
#include "lib/gate/compare.h"
#include "lib/launch/host_settings.h"
#include "lib/sweep/planner.h"

namespace commbench::app {

GateRunner::GateRunner(result::ToolInfo tool, std::string command, bool quiet)
    : tool_(std::move(tool)), command_(std::move(command)), quiet_(quiet) {}

Status GateRunner::Prepare(const SweepSpec& spec) {
  ASSIGN_OR_RETURN(backends_, DescribeRegisteredBackends(spec.backends));
  ASSIGN_OR_RETURN(plan_, PlanSweep(spec, backends_));
  RETURN_IF_ERROR(CheckHostSettings(spec));
  if (plan_.point_count() == 0) return InvalidArgument("the sweep has no point that can run here");
  return OkStatus();
}

PipelineOutcome GateRunner::Run(const SweepSpec& spec, const std::string& out, const Variant& variant) const {
  PipelineRequest request;
  request.rank_env = variant.rank_env;
  request.tool = tool_;
  request.plan = &plan_;
  request.spec = spec;
  request.command = command_;
  request.out = out;
  request.quiet = quiet_;
  return RunPipeline(request);
}

StatusOr<BaselineGate> LoadBaselineGate(const std::string& path, const SweepSpec& given, const SweepSpec& defaults) {
  ASSIGN_OR_RETURN(result::ResultFile base, gate::LoadComparable(path));
  const std::vector<std::string> conflicts = SpecConflicts(given, base.header.spec, defaults);
  if (!conflicts.empty()) {
    return InvalidArgument("the flags ask for another sweep than the baseline records: " + conflicts.front() +
                           " (accepted: the baseline's own spec; measure a new baseline with --update-baseline)");
  }
  BaselineGate gate;
  gate.spec = GateSpec(base.header.spec, given);  // the same spec, repeats included
  gate.base = std::move(base);
  return gate;
}

Status KeepAsBaseline(const result::ResultFile& run, const std::string& path) {
  return WriteFileAtomically(path, BaselineText(run));
}

StatusOr<AbRun> RunAlternating(const GateRunner& runner, const SweepSpec& once, const Variant& a, const Variant& b,
                               int64_t repeats, const std::string& dir, const AbProgress& progress) {
  std::vector<result::ResultFile> runs[2];
  const Variant* variants[2] = {&a, &b};
  bool failed = false;
  for (int64_t r = 0; r < repeats && !failed; ++r) {
    for (int v = 0; v < 2 && !failed; ++v) {
      SweepSpec spec = once;
      if (variants[v]->uniform_slowdown) spec.test_only_uniform_slowdown = *variants[v]->uniform_slowdown;
      if (progress.starting) progress.starting(r + 1, v);
      PipelineOutcome run = runner.Run(spec, dir + "/" + "ab"[v] + "-" + std::to_string(r) + ".json", *variants[v]);
      if (!run.written.ok()) return run.written;
      failed = !run.failure.empty();
      if (failed && progress.failed) progress.failed(v, run.failure);
      runs[v].push_back(std::move(run.result));
    }
  }
  return AbRun{MergeRepeats(runs[0], repeats), MergeRepeats(runs[1], repeats)};
}

std::set<std::string> VariedVariables(const Variant& a, const Variant& b) {
  std::set<std::string> names;
  for (const Variant* side : {&a, &b}) {
    for (const std::string& name : side->Names()) names.insert(name);
  }
  return names;
}

result::ResultFile WithoutSamples(result::ResultFile file) {
  for (result::PointResult& p : file.points) p.samples_us = result::SampleSet{0, {}, ""};
  return file;
}

}  // namespace commbench::app
