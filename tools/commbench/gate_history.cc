// `commbench gate --history DIR` (gate.h): the baseline is the recent segment of main's history on this runner
// (lib/history/gate_baseline.h), the sweep the one this runner's latest run recorded. The result file and the
// comparison JSON get a "gate_history" record of exactly the runs used. Exit codes as `compare`; 3 also when the
// history is valid but its segment is too short to say (before any rank starts, nothing written).
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "lib/app/gate_policy.h"
#include "lib/app/gate_run.h"
#include "lib/core/output_paths.h"
#include "lib/history/gate_baseline.h"
#include "lib/measure/environment_probe.h"
#include "lib/result/result_writer.h"
#include "tools/commbench/command_line.h"
#include "tools/commbench/gate.h"

namespace commbench::cli {
namespace {

// Which runs the baseline is, on stderr: the record in the files says the same per point.
void PrintRunsUsed(const history::GateBaseline& b) {
  const history::RunEntry& first = b.runs.front();
  const history::RunEntry& last = b.runs.back();
  std::fprintf(stderr,
               "commbench gate: against %zu runs of %s (runner %s: %s), %s (commit %s, %s) to %s (commit %s, %s)\n",
               b.runs.size(), b.dir.c_str(), b.fingerprint.c_str(), b.runner.c_str(), first.id.c_str(),
               first.commit.c_str(), first.time.c_str(), last.id.c_str(), last.commit.c_str(), last.time.c_str());
  for (const history::PointSegment& seg : b.points) {
    if (!seg.after_change) continue;
    std::fprintf(stderr, "commbench gate:   %s: the %zu runs since its change point at %s (commit %s, p %.3g)\n",
                 seg.point_id.c_str(), seg.runs.size(), seg.runs.front().id.c_str(), seg.runs.front().commit.c_str(),
                 seg.change_p);
  }
}

}  // namespace

int RunHistoryGate(const GateOptions& o, const SweepSpec& given) {
  // No output in the history it reads: `--out DIR/history.json` would replace the index with a result.
  const std::string sidecar = result::SamplesSidecarPath(o.out);
  Status apart = CheckOutputsApart({{"--out", o.out},
                                    {"--out's samples", sidecar},
                                    {"--json", o.flags.outputs.json},
                                    {"--junit", o.flags.outputs.junit},
                                    {"--html", o.flags.outputs.html},
                                    {"--summary", o.flags.outputs.summary},
                                    {"--prom", o.exports.prom},
                                    {"--csv", o.exports.csv},
                                    {"--trace", o.exports.trace}},
                                   {{"--history", o.history}}, {{"--history", o.history}});
  if (!apart.ok()) return ErrorExit(apart.message());
  auto b = history::LoadGateBaseline(o.history, history::RunnerFingerprint(EnvironmentFingerprint()));
  if (!b.ok()) return ErrorExit(b.status().message());
  if (!b->too_short.empty()) {
    std::fprintf(stderr, "commbench gate: inconclusive: --history %s: %s\n", o.history.c_str(), b->too_short.c_str());
    return 3;
  }
  // The sweep this runner's latest run recorded, checked against the flags as --baseline checks its file's.
  const SweepSpec& recorded = b->base.header.spec;
  const std::vector<std::string> conflicts = app::SpecConflicts(given, recorded, *ToSpec(SweepFlags{}));
  if (!conflicts.empty()) {
    return ErrorExit("--history " + o.history + ": the flags ask for another sweep than its latest run " +
                     b->latest.id + " records: " + conflicts.front() +
                     " (accepted: that run's own sweep; another sweep needs its own "
                     "history)");
  }
  const SweepSpec spec = app::GateSpec(recorded, given);  // the same spec, repeats included
  app::GateRunner runner(ToolIdentity(), Invocation(), o.quiet);
  Status s = runner.Prepare(spec);
  if (!s.ok()) return ErrorExit(s.message());
  std::fprintf(stderr, "commbench gate: %zu points x %lld repeats, as the history's latest run %s records\n",
               runner.points(), static_cast<long long>(spec.repeats), b->latest.id.c_str());
  PrintRunsUsed(*b);
  app::PipelineOutcome run = runner.Run(spec, o.out);
  if (!run.written.ok()) return ErrorExit(run.written.message());
  const nlohmann::json record = history::GateRecordToJson(*b);
  s = history::AddGateRecord(o.out, record);
  if (s.ok()) s = WriteExports(run.result, o.out, o.exports);
  if (!s.ok()) {  // as gate_modes.cc: an output lost after the run is a failed gate
    std::fprintf(stderr, "commbench: error: %s\n", ScrubSecrets(s.message()).c_str());
    return 1;
  }
  if (!run.failure.empty()) std::fprintf(stderr, "commbench gate: the run failed: %s\n", run.failure.c_str());
  gate::CompareOptions compare = o.compare;
  compare.base_is_runs = true;  // one value per run of main: this job is one more run
  const gate::Comparison c = gate::Compare(b->base, run.result, compare);
  s = EmitComparison(c, o.flags.outputs, "history " + o.history, o.out, "gate");
  if (s.ok() && !o.flags.outputs.json.empty()) s = history::AddGateRecord(o.flags.outputs.json, record);
  if (!s.ok()) return ErrorExit(s.message());
  return c.ExitCode();
}

}  // namespace commbench::cli
