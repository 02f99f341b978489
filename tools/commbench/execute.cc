#include "tools/commbench/execute.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>

#include "lib/app/pipeline.h"
#include "lib/app/sweep_plan.h"
#include "lib/backend/backend.h"
#include "lib/core/affinity.h"
#include "lib/core/cpu_quota.h"
#include "lib/core/current_exception.h"
#include "lib/core/printable.h"
#include "lib/core/ranges.h"
#include "lib/launch/host_settings.h"
#include "lib/report/console.h"
#include "lib/report/console_arrival.h"
#include "lib/report/console_findings.h"
#include "lib/report/console_time.h"
#include "lib/report/html.h"
#include "lib/sweep/planner.h"
#include "tools/commbench/command_line.h"
#include "tools/commbench/export_flags.h"

namespace commbench::cli {

using app::PipelineOutcome;
using app::RunPipeline;
namespace {

// One error line; returns the exit code to use.
int Fail(const Status& status, int exit_code) { return ErrorExit(status.message(), exit_code); }

void PrintConsole(const result::ResultFile& result) {
  std::fputs(FormatTables(result.points).c_str(), stdout);
  std::fputs(FormatGrowth(result.trailer.diagnosis.fits).c_str(), stdout);
  std::fputs(FormatArrivals(result.points).c_str(), stdout);
  std::fputs(FormatWallTime(result.trailer).c_str(), stdout);
  std::fputs(FormatFindings(result.trailer.diagnosis).c_str(), stdout);
  std::fflush(stdout);
}

// Files first (a partial result is still written), then the failure or the wrong results.
int Report(const PipelineOutcome& outcome, const OutputFlags& outputs) {
  if (!outcome.written.ok()) return Fail(outcome.written, 1);
  std::fprintf(stderr, "commbench: wrote %s (%zu points%s)\n", Printable(outputs.out).c_str(),
               outcome.result.points.size(), outcome.failure.empty() ? "" : ", partial");
  // The JSON result is on disk: a report or export that fails (or throws) says so and leaves it there.
  auto guarded = [&outputs](const std::string& what, const std::function<Status()>& write) {
    try {
      return write();
    } catch (...) {
      return Internal(what + ": " + CurrentExceptionText() + " (the result " + outputs.out + " is kept)");
    }
  };
  Status exported = guarded("exports", [&] { return WriteExports(outcome.result, outputs.out, outputs.exports); });
  if (!exported.ok()) return Fail(exported, 1);
  // The report last: its path is the line a first run ends on, the one to open.
  if (!outputs.html.empty()) {
    Status html = guarded(outputs.html, [&] { return report::WriteHtmlReport(outcome.result, outputs.html); });
    if (!html.ok()) return Fail(html, 1);
    std::fprintf(stderr, "commbench: wrote %s\n", Printable(outputs.html).c_str());
  }
  if (!outcome.failure.empty()) {
    return ErrorExit(outcome.failure, 1);
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
  Status injected = app::CheckInjectedRanks(spec, *plan);
  if (!injected.ok()) return bad_input(injected);
  Status writable = CheckOutputs(outputs);
  if (!writable.ok()) return bad_input(writable);
  Status host = CheckHostSettings(spec);
  if (!host.ok()) return bad_input(host);
  for (const auto& s : plan->skipped)
    std::fprintf(stderr, "commbench: skipped %s: %s\n", s.what.c_str(), s.reason.c_str());
  if (!outputs.quiet) {
    std::fprintf(stderr, "commbench: %zu points in %zu launches\n", plan->point_count(), plan->launches.size());
    const std::string quota = app::CpuQuotaNote(ReadCpuQuota(), AllowedCpus().size());
    if (!quota.empty()) std::fprintf(stderr, "commbench: %s\n", quota.c_str());
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
      app::ExplainFollowUp second = app::PlanExplainAbs(first, planned, spec, described, FormatCpuList(AllowedCpus()));
      for (const std::string& note : second.notes) std::fprintf(stderr, "commbench: %s\n", note.c_str());
      return second.follow_up;
    };
  }
  request.run_plan = hooks.run_plan;
  PipelineOutcome outcome = RunPipeline(request);
  if (hooks.failure) *hooks.failure = outcome.failure;
  // A run that failed before its first point has nothing to diagnose: its error line says why.
  if (outcome.failure.empty() || !outcome.result.points.empty()) PrintConsole(outcome.result);
  return Report(outcome, outputs);
}

}  // namespace commbench::cli
