// What `commbench accept` writes beside its result: the verdict files first (JUnit, --hosts-out), the HTML and the
// exports; and, when a run has no verdict, the removal of the previous run's, so that no stale "pass" is read.
#include <cstdio>
#include <string>
#include <vector>

#include "lib/accept/outputs.h"
#include "lib/core/printable.h"
#include "lib/report/html.h"
#include "lib/result/result_writer.h"
#include "tools/commbench/accept.h"
#include "tools/commbench/command_line.h"
#include "tools/commbench/comparison_outputs.h"
#include "tools/commbench/export_flags.h"

namespace commbench::cli {
namespace {

// A run without a verdict leaves none of the previous run's outputs (app::RemoveStaleOutputs), and says so.
void RemoveStale(const std::vector<std::string>& paths) {
  for (const std::string& path : app::RemoveStaleOutputs(paths)) {
    std::fprintf(stderr, "commbench: accept: no verdict written, so the previous run's %s is removed\n",
                 Printable(path).c_str());
  }
}

// Every output but the result itself (and its sidecar), which the pipeline writes first.
std::vector<std::string> Beside(const AcceptOptions& o) {
  return {o.output.html, o.junit, o.hosts_out, o.output.exports.prom, o.output.exports.csv, o.output.exports.trace};
}

}  // namespace

int ReportAcceptance(const app::AcceptOutcome& run, const AcceptOptions& o) {
  const app::PipelineOutcome& outcome = run.pipeline;
  if (!outcome.written.ok()) {
    RemoveStaleAcceptOutputs(o);
    return ErrorLines(outcome.written.message(), 1);
  }
  std::fprintf(stderr, "commbench: wrote %s (%zu points%s)\n", Printable(o.output.out).c_str(),
               outcome.result.points.size(), outcome.failure.empty() ? "" : ", partial");
  Status s = app::WriteAcceptanceFiles(run.report, o.junit, o.hosts_out);
  if (s.ok() && !o.output.html.empty()) s = report::WriteHtmlReport(outcome.result, o.output.html);
  if (s.ok()) s = WriteExports(outcome.result, o.output.out, o.output.exports);
  if (!s.ok()) {  // only the result stays: no output beside it from an earlier run, nor half of this run's
    RemoveStale(Beside(o));
    return ErrorLines(s.message(), 1);
  }
  const std::string markdown = accept::AcceptanceToMarkdown(run.report);
  std::fputs(ConsoleLines(markdown).c_str(), stdout);  // no line of it a workflow command
  std::fflush(stdout);
  Status summaries = AppendSummaries(o.summary, markdown);
  if (!summaries.ok()) return ErrorLines(summaries.message(), 1);
  if (!outcome.failure.empty()) std::fprintf(stderr, "commbench: error: %s\n", ScrubSecrets(outcome.failure).c_str());
  return run.report.ExitCode();
}

void RemoveStaleAcceptOutputs(const AcceptOptions& o) {
  RemoveStale({o.output.out, result::SamplesSidecarPath(o.output.out)});
  RemoveStale(Beside(o));
}

}  // namespace commbench::cli
