#include "tools/commbench/execute.h"

#include <cstdio>

#include "lib/backend/backend.h"
#include "lib/core/affinity.h"
#include "lib/core/ranges.h"
#include "lib/launch/host_settings.h"
#include "lib/report/console.h"
#include "lib/report/console_findings.h"
#include "lib/report/html.h"
#include "lib/sweep/explain.h"
#include "lib/sweep/planner.h"
#include "tools/commbench/pipeline.h"

namespace commbench::cli {
namespace {

// One error line; returns the exit code to use.
int Fail(const Status& status, int exit_code) {
  std::fprintf(stderr, "commbench: error: %s\n", status.message().c_str());
  return exit_code;
}

// --explain: the A/B axis values that let the diagnosis confirm or rule out causes within this sweep.
SweepSpec WithExplainAxes(const SweepSpec& spec, const std::vector<BackendDescription>& backends,
                          const std::string& affinity) {
  std::vector<BackendCapabilities> capabilities;
  for (const auto& b : backends) capabilities.push_back(b.capabilities);
  ExplainExpansion expansion = ExpandForExplain(spec, capabilities, affinity);
  for (const auto& reason : expansion.reasons) std::fprintf(stderr, "commbench: --explain: %s\n", reason.c_str());
  return expansion.spec;
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

}  // namespace

int ExecuteSweep(const SweepSpec& requested, const OutputFlags& outputs, const std::string& command) {
  auto backends = DescribeRegisteredBackends(requested.backends);
  if (!backends.ok()) return Fail(backends.status(), 2);
  const SweepSpec spec =
      outputs.explain ? WithExplainAxes(requested, *backends, FormatCpuList(AllowedCpus())) : requested;
  auto plan = PlanSweep(spec, *backends);
  if (!plan.ok()) return Fail(plan.status(), 2);
  Status writable = CheckOutputs(outputs);
  if (!writable.ok()) return Fail(writable, 2);
  Status host = CheckHostSettings(spec);
  if (!host.ok()) return Fail(host, 2);
  for (const auto& s : plan->skipped) std::fprintf(stderr, "commbench: skipped %s: %s\n", s.what.c_str(), s.reason.c_str());
  if (!outputs.quiet) {
    std::fprintf(stderr, "commbench: %zu points in %zu launches\n", plan->point_count(), plan->launches.size());
  }
  PipelineRequest request;
  request.plan = &*plan;
  request.spec = spec;
  request.command = command;
  request.out = outputs.out;
  request.quiet = outputs.quiet;
  PipelineOutcome outcome = RunPipeline(request);
  PrintConsole(outcome.result);
  return Report(outcome, outputs);
}

}  // namespace commbench::cli
