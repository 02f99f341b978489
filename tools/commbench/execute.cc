#include "tools/commbench/execute.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <map>
#include <optional>
#include <set>

#include "lib/backend/backend.h"
#include "lib/core/affinity.h"
#include "lib/core/ranges.h"
#include "lib/launch/host_settings.h"
#include "lib/report/console.h"
#include "lib/report/console_findings.h"
#include "lib/report/html.h"
#include "lib/sweep/explain.h"
#include "lib/sweep/planner.h"
#include "tools/commbench/export_flags.h"
#include "lib/app/pipeline.h"
#include "tools/commbench/command_line.h"

namespace commbench::cli {

using app::FollowUp;
using app::PipelineOutcome;
using app::RunPipeline;
namespace {

// One error line; returns the exit code to use.
int Fail(const Status& status, int exit_code) {
  std::fprintf(stderr, "commbench: error: %s\n", status.message().c_str());
  return exit_code;
}

// "gloo allreduce 400 B": which series a console line is about.
std::string SeriesName(const Point& p) {
  return p.backend + " " + std::string(Name(p.op)) + " " + std::to_string(p.bytes) + " B";
}

std::string GroupList(const std::vector<Point>& points) {
  std::string out;
  for (const Point& p : points) out += (out.empty() ? "" : ",") + std::to_string(p.groups);
  return out;
}

// --explain's second phase: for each cause the first phase suspects, the A/B points that vary that cause's
// factor for the series it names (lib/sweep/explain.h), one console line per cause.
FollowUp PlanExplainAbs(const result::ResultFile& first, const Plan& planned, const SweepSpec& spec,
                        const std::vector<BackendDescription>& backends) {
  std::map<std::string, Point> by_id;
  for (const Launch& l : planned.launches) {
    for (const Point& p : l.points) by_id[p.Id()] = p;
  }
  std::set<std::string> measured;
  for (const auto& p : first.points) measured.insert(p.id);
  TargetedAbOptions options;
  options.affinity = FormatCpuList(AllowedCpus());
  FollowUp follow_up;
  std::vector<Point> to_run;
  bool any_suspected = false;
  for (const result::Finding& f : first.trailer.diagnosis.findings) {
    if (f.status != result::FindingStatus::kSuspected) continue;
    any_suspected = true;
    Suspect suspect{f.rule, {}};
    for (const std::string& id : f.points) {
      if (by_id.count(id)) suspect.series.push_back(by_id.at(id));
    }
    std::optional<TargetedAb> ab = AbForSuspect(suspect, options);
    if (!ab) {
      std::fprintf(stderr, "commbench: --explain: %s suspected: no A/B varies its factor alone; it stays suspected\n",
                   f.rule.c_str());
      continue;
    }
    result::ExplainAb record{ab->rule, ab->factor, ab->reason, f.points, {}};
    for (const Point& p : ab->points) {
      if (!measured.insert(p.Id()).second) continue;  // already measured (by the sweep or for another cause)
      record.points.push_back(p.Id());
      to_run.push_back(p);
    }
    std::fprintf(stderr, "commbench: --explain: %s suspected in %s: runs %s, at G=%s (%zu points)\n", f.rule.c_str(),
                 SeriesName(suspect.series.front()).c_str(), ab->reason.c_str(), GroupList(ab->points).c_str(),
                 record.points.size());
    follow_up.record.abs.push_back(std::move(record));
  }
  if (!any_suspected) std::fprintf(stderr, "commbench: --explain: nothing suspected: no A/B to run\n");
  if (to_run.empty()) return follow_up;
  auto plan = PlanPoints(spec, to_run, backends);
  if (!plan.ok()) {
    std::fprintf(stderr, "commbench: warning: --explain: %s\n", plan.status().message().c_str());
    return follow_up;
  }
  follow_up.plan = std::move(*plan);
  return follow_up;
}

void PrintConsole(const result::ResultFile& result) {
  std::fputs(FormatTables(result.points).c_str(), stdout);
  std::fputs(FormatGrowth(result.trailer.diagnosis.fits).c_str(), stdout);
  std::fputs(FormatFindings(result.trailer.diagnosis).c_str(), stdout);
  std::fflush(stdout);
}

// Files first (a partial result is still written), then the failure or the wrong results.
int Report(const PipelineOutcome& outcome, const OutputFlags& outputs) {
  if (!outcome.written.ok()) return Fail(outcome.written, 1);
  std::fprintf(stderr, "commbench: wrote %s (%zu points%s)\n", outputs.out.c_str(), outcome.result.points.size(),
               outcome.failure.empty() ? "" : ", partial");
  if (!outputs.html.empty()) {
    Status html = report::WriteHtmlReport(outcome.result, outputs.html);
    if (!html.ok()) return Fail(html, 1);
    std::fprintf(stderr, "commbench: wrote %s\n", outputs.html.c_str());
  }
  Status exported = WriteExports(outcome.result, outputs.out, outputs.exports);
  if (!exported.ok()) return Fail(exported, 1);
  if (!outcome.failure.empty()) {
    std::fprintf(stderr, "commbench: error: %s\n", outcome.failure.c_str());
    return 1;
  }
  bool all_correct = true;
  for (const result::PointResult& p : outcome.result.points) {
    for (const std::string& e : p.errors) {
      std::fprintf(stderr, "commbench: error: wrong result in %s: %s\n", p.id.c_str(), e.c_str());
    }
    all_correct = all_correct && p.correct;
  }
  return all_correct ? 0 : 1;
}

// A fault aimed at a rank no launch of the sweep has would silently inject nothing: the test would pass for the
// wrong reason.
Status CheckInjectedRanks(const SweepSpec& spec, const Plan& plan) {
  if (plan.launches.empty()) return OkStatus();
  int world = 0;
  for (const Launch& l : plan.launches) world = std::max(world, l.world);
  for (const auto& [flag, value] : {std::pair<std::string, std::string>{"--test-only-slow-rank", spec.test_only_slow_rank},
                                    {"--test-only-hang-rank", spec.test_only_hang_rank}}) {
    if (value.empty()) continue;
    const long long rank = std::strtoll(value.c_str(), nullptr, 10);  // the planner checked RANK:NUMBER
    if (rank >= world) {
      return InvalidArgument(flag + ": rank " + value.substr(0, value.find(':')) + " in '" + value +
                             "' is in no world of this sweep (accepted: a rank from 0 to " +
                             std::to_string(world - 1) + ")");
    }
  }
  return OkStatus();
}

}  // namespace

int ExecuteSweep(const SweepSpec& spec, const OutputFlags& outputs, const std::string& command) {
  return ExecuteSweep(spec, outputs, command, SweepHooks{});
}

int ExecuteSweep(const SweepSpec& spec, const OutputFlags& outputs, const std::string& command,
                 const SweepHooks& hooks) {
  auto bad_input = [&hooks](const Status& status) {
    if (hooks.failure) *hooks.failure = "rank 0: " + status.message();
    return Fail(status, 2);
  };
  if (spec.group_by != GroupBy::kConsecutive && !hooks.run_plan) {
    return bad_input(InvalidArgument("--group-by " + std::string(Name(spec.group_by)) +
                                     ": the driver's ranks share one host; it needs ranks a launcher started on "
                                     "several hosts (README, Running on a cluster) (accepted here: consecutive)"));
  }
  auto backends = DescribeRegisteredBackends(spec.backends);
  if (!backends.ok()) return bad_input(backends.status());
  auto plan = PlanSweep(spec, *backends);
  if (!plan.ok()) return bad_input(plan.status());
  if (hooks.fit_plan) {
    std::vector<std::string> notes;
    Status fitted = hooks.fit_plan(&*plan, &notes);
    if (!fitted.ok()) return bad_input(fitted);
    for (const std::string& note : notes) std::fprintf(stderr, "commbench: %s\n", note.c_str());
  }
  Status injected = CheckInjectedRanks(spec, *plan);
  if (!injected.ok()) return bad_input(injected);
  Status writable = CheckOutputs(outputs);
  if (!writable.ok()) return bad_input(writable);
  Status host = CheckHostSettings(spec);
  if (!host.ok()) return bad_input(host);
  for (const auto& s : plan->skipped) std::fprintf(stderr, "commbench: skipped %s: %s\n", s.what.c_str(), s.reason.c_str());
  if (!outputs.quiet) {
    std::fprintf(stderr, "commbench: %zu points in %zu launches\n", plan->point_count(), plan->launches.size());
  }
  app::PipelineRequest request;
  request.tool = ToolIdentity();
  request.plan = &*plan;
  request.spec = spec;
  request.command = command;
  request.out = outputs.out;
  request.quiet = outputs.quiet;
  if (outputs.explain) {  // the first phase is the requested sweep; its diagnosis chooses the second
    const Plan& planned = *plan;
    const std::vector<BackendDescription>& described = *backends;
    request.follow_up = [&planned, &spec, &described](const result::ResultFile& first) {
      return PlanExplainAbs(first, planned, spec, described);
    };
  }
  request.run_plan = hooks.run_plan;
  PipelineOutcome outcome = RunPipeline(request);
  if (hooks.failure) *hooks.failure = outcome.failure;
  PrintConsole(outcome.result);
  return Report(outcome, outputs);
}

}  // namespace commbench::cli
