#include "tools/commbench/traffic_measure.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <set>

#include "lib/app/pipeline.h"
#include "lib/backend/backend.h"
#include "lib/core/printable.h"
#include "lib/core/temp_dir.h"
#include "lib/core/types.h"
#include "lib/launch/host_settings.h"
#include "lib/sweep/planner.h"
#include "lib/traffic/measured_step.h"
#include "tools/commbench/command_line.h"
#include "tools/commbench/sweep_flags.h"

namespace commbench::cli {
namespace {

// The sweep that runs the step's buckets: one allreduce point per bucket size, one group of `world` ranks. One
// algorithm runs every size, or "auto" when the backend's choice differs between sizes (it chooses as the model).
SweepFlags BucketSweep(const traffic::StepRequest& r, const traffic::StepTraffic& step, const MeasureRequest& m,
                       const std::string& backend, const std::string& dtype) {
  SweepFlags f;
  f.backends = backend;
  f.dtypes = dtype;
  std::set<std::string> algos;
  f.sizes.clear();
  for (const traffic::BucketGroup& g : step.groups) {
    f.sizes += (f.sizes.empty() ? "" : ",") + std::to_string(g.count * r.element_size);
    algos.insert(g.algo);
  }
  f.algos = algos.size() == 1 ? *algos.begin() : "auto";
  f.groups = "1";
  f.group_sizes = std::to_string(r.world);
  f.launcher = m.launcher;
  f.spec.time_budget_s = m.time_budget_s;
  if (!m.host.empty()) f.spec.host = m.host;
  return f;
}

// Per bucket group, its point's figures by group rank.
StatusOr<std::vector<traffic::BucketMeasure>> Collect(const traffic::StepTraffic& step,
                                                      const std::vector<result::PointResult>& points, int world) {
  std::vector<traffic::BucketMeasure> out;
  for (const traffic::BucketGroup& g : step.groups) {
    const result::PointResult* found = nullptr;
    for (const auto& p : points) found = p.point.count == g.count ? &p : found;
    if (!found) return Internal("no point ran the " + std::to_string(g.count) + "-element bucket");
    traffic::BucketMeasure m;
    m.algo = found->point.algo;
    m.sent_per_op.assign(static_cast<size_t>(world), -1);
    m.recv_per_op.assign(static_cast<size_t>(world), -1);
    m.time_us_per_op.assign(static_cast<size_t>(world), 0);
    for (const result::RankTime& rank : found->per_rank) {
      if (rank.group_rank < 0 || rank.group_rank >= world) continue;
      const size_t k = static_cast<size_t>(rank.group_rank);
      m.time_us_per_op[k] = rank.time_us.mean;
      if (rank.traffic) m.sent_per_op[k] = rank.traffic->SentPerOp(), m.recv_per_op[k] = rank.traffic->RecvPerOp();
    }
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace

StatusOr<PlannedMeasure> PlanMeasure(const traffic::StepRequest& r, const traffic::StepTraffic& step,
                                     const MeasureRequest& m) {
  // Native's model assumed a transport; the sweep runs that one. A backend without bf16 (Gloo) runs f16, which
  // moves the same bytes.
  PlannedMeasure p;
  ASSIGN_OR_RETURN(const BackendCapabilities asked, CapabilitiesOf(m.backend));
  p.backend = m.transport == "tcp" && !asked.tcp_twin.empty() ? asked.tcp_twin : m.backend;
  ASSIGN_OR_RETURN(const BackendCapabilities runs, CapabilitiesOf(p.backend));
  const bool has_bf16 = std::find(runs.dtypes.begin(), runs.dtypes.end(), DataType::kBF16) != runs.dtypes.end();
  p.dtype = !has_bf16 && m.dtype == "bf16" ? "f16" : m.dtype;
  ASSIGN_OR_RETURN(p.spec, ToSpec(BucketSweep(r, step, m, p.backend, p.dtype)));
  ASSIGN_OR_RETURN(auto backends, DescribeRegisteredBackends(p.spec.backends));
  ASSIGN_OR_RETURN(p.plan, PlanSweep(p.spec, backends));
  if (!p.plan.skipped.empty()) {
    return InvalidArgument("--measure: " + p.plan.skipped.front().what + ": " + p.plan.skipped.front().reason);
  }
  if (!m.out.empty()) {
    OutputFlags outputs;
    outputs.out = m.out;
    RETURN_IF_ERROR(CheckOutputs(outputs));
  }
  RETURN_IF_ERROR(CheckHostSettings(p.spec));
  return p;
}

int RunMeasure(const traffic::StepRequest& r, const traffic::StepTraffic& step, const MeasureRequest& m,
               const PlannedMeasure& p, const SpmdMeasure* spmd) {
  std::string out = m.out;
  std::optional<TempDir> scratch;  // the result file when --out names none, removed with it
  if (out.empty()) {
    scratch.emplace("commbench-traffic-");
    if (scratch->path().empty()) return ErrorExit("--measure: no temporary directory for the sweep's result", 1);
    out = scratch->path() + "/buckets.json";
  }
  app::PipelineRequest request;
  request.tool = ToolIdentity();
  request.plan = &p.plan;
  request.spec = p.spec;
  request.command = Invocation();
  request.out = out;
  request.quiet = true;
  if (spmd) request.run_plan = spmd->run_plan;
  std::fprintf(stderr, "commbench: measuring %zu bucket size%s on %d ranks (%s)\n", step.groups.size(),
               step.groups.size() == 1 ? "" : "s", r.world, p.backend.c_str());
  app::PipelineOutcome outcome = app::RunPipeline(request);
  scratch.reset();
  if (spmd) *spmd->failure = outcome.failure;
  if (!outcome.failure.empty()) return ErrorExit("--measure: " + outcome.failure, 1);
  if (!outcome.written.ok()) return ErrorExit(outcome.written.message(), 1);
  for (const auto& point : outcome.result.points) {
    if (!point.correct) return ErrorExit("--measure: wrong result in " + point.id, 1);
  }
  auto measured = Collect(step, outcome.result.points, r.world);
  if (!measured.ok()) return ErrorExit("--measure: " + measured.status().message(), 1);
  auto ranks = traffic::SumMeasuredStep(step, *measured, r.world);
  if (!ranks.ok()) return ErrorExit("--measure: " + ranks.status().message(), 1);
  const std::string where = spmd ? spmd->where : m.launcher == "local" ? "local ranks" : "ranks under " + m.launcher;
  std::fputs(traffic::MeasuredStepToText(r, step, *measured, *ranks, {p.backend, p.dtype, where}).c_str(), stdout);
  if (!m.out.empty()) std::fprintf(stderr, "commbench: wrote %s\n", Printable(m.out).c_str());
  return 0;
}

}  // namespace commbench::cli
