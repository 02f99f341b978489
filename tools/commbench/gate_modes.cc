// `commbench gate --baseline` and `--ab` (gate.h): each runs through lib/app/gate_run.h (the rounds and the
// outputs they share: gate_rounds.cc); here what each mode does before and after its rounds, and the exit codes
// (as `compare`: 0 no regression, 1 a regression or a wrong result, 2 bad input, 3 inconclusive or incomparable).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include "lib/app/gate_calibrate.h"
#include "lib/app/gate_policy.h"
#include "lib/app/gate_run.h"
#include "lib/core/atomic_file.h"
#include "lib/gate/calibration.h"
#include "lib/gate/compare.h"
#include "lib/measure/host_reference.h"
#include "tools/commbench/command_line.h"
#include "tools/commbench/gate.h"

namespace commbench::cli {
namespace {

// The host's reference samples the first baseline takes before and after its sweep (a gate's rounds take
// app::kHostSamplesPerRound each).
constexpr int kFirstBaselineHostSamples = 20;

// `n` samples of the host's reference into `host`; on a failure, said, the baseline keeps none (a later gate then
// says the host was not compared).
void SampleHost(int n, result::HostReference* host) {
  const Status s = AddHostReferenceSamples(n, host);
  if (s.ok()) return;
  std::fprintf(stderr, "commbench gate: %s (the baseline keeps no host reference)\n", s.message().c_str());
  *host = result::HostReference{};
}

// No baseline yet: measure the flags' (or the config's) sweep and make it the baseline, calibrated from its own
// repeats (gate --calibrate measures A/A later), with the host's reference taken around it.
int MeasureFirstBaseline(const GateOptions& o, const SweepSpec& given) {
  auto sequential = SequentialFrom(o, given.repeats, true);  // the schedule of the gates that will judge against it
  if (!sequential.ok()) return ErrorExit(sequential.status().message());
  app::GateRunner runner(ToolIdentity(), Invocation(), o.quiet);
  Status ready = runner.Prepare(given);
  if (!ready.ok()) return ErrorExit(ready.message());
  result::HostReference host;
  SampleHost(kFirstBaselineHostSamples, &host);
  app::PipelineOutcome run = runner.Run(given, o.out);
  if (!run.written.ok()) return ErrorExit(run.written.message());
  if (host.size() > 0) SampleHost(kFirstBaselineHostSamples, &host);
  if (!Exported(run.result, o.out, o)) return 1;
  if (!app::CompleteAndCorrect(run.result)) {
    std::fprintf(stderr, "commbench: error: not writing a baseline from a failed run: %s\n",
                 run.failure.empty() ? "a wrong result" : run.failure.c_str());
    return 1;
  }
  const gate::Calibration c = gate::CalibrateOneSide(run.result, run.result.trailer.duration_s, given.repeats,
                                                     o.budget_s, sequential->schedule, o.compare);
  Status s = app::KeepCalibratedBaseline(run.result, &c, &host, o.baseline);
  if (!s.ok()) return ErrorExit(s.message());
  std::fprintf(stderr, "commbench gate: wrote the baseline %s (%zu points)\n", o.baseline.c_str(),
               run.result.points.size());
  SayUngateable(c);
  return 0;
}

// The baseline's blocks, its calibration's ungateable points said before anything is judged. An error: a block
// cannot be read.
StatusOr<app::BaselineBlocks> Blocks(const std::string& baseline) {
  auto blocks = app::LoadBaselineBlocks(baseline);
  if (!blocks.ok() || !blocks->calibration) return blocks;
  if (blocks->legacy_calibration) {
    std::fprintf(stderr, "commbench gate: calibration from the older %s (gate --calibrate now keeps it in %s)\n",
                 gate::CalibrationPath(baseline).c_str(), baseline.c_str());
  }
  SayUngateable(*blocks->calibration);
  return blocks;
}

}  // namespace

int RunBaselineGate(const GateOptions& o, const SweepSpec& given) {
  if (o.calibrate) return RunCalibration(o, given);
  if (!PathExists(o.baseline)) {
    if (!o.update_baseline) return ErrorExit(o.baseline + ": cannot read: " + std::strerror(ENOENT));
    return MeasureFirstBaseline(o, given);
  }
  Status s = o.update_baseline ? CheckWritableOutput(o.baseline) : OkStatus();
  if (!s.ok()) return ErrorExit(s.message());
  auto gate = app::LoadBaselineGate(o.baseline, given, *ToSpec(SweepFlags{}));
  if (!gate.ok()) return ErrorExit(gate.status().message());
  auto sequential = SequentialFrom(o, gate->spec.repeats, !o.update_baseline);
  if (!sequential.ok()) return ErrorExit(sequential.status().message());
  sequential->schedule.base_grows = false;
  auto blocks = Blocks(o.baseline);
  if (!blocks.ok()) return ErrorExit(blocks.status().message());
  sequential->measure_host = true;
  sequential->base_host = std::move(blocks->host);
  gate::CompareOptions compare = o.compare;
  compare.calibration = blocks->calibration;
  if (compare.calibration) {
    gate::JobsToJudge jobs = gate::SteadyJobs(*compare.calibration, gate::HostSpeed(sequential->base_host));
    compare.base_jobs_us = std::move(jobs.medians_us);
    sequential->base_job_host_s = std::move(jobs.host_s);
  }
  auto run = RunRounds(o, gate->spec, "",
                       "up to " + std::to_string(gate->spec.repeats) + " repeats (as " + o.baseline + " records)" +
                           (o.update_baseline ? ", all of them (--update-baseline)" : ", until each is decided"),
                       &gate->base, {}, {}, compare, *sequential);
  if (!run.ok()) return ErrorExit(run.status().message());
  run->now.header.spec.repeats = gate->spec.repeats;
  if (const int written = WriteSides(*run, o, false); written != 0) return written;
  const gate::Comparison& c = run->comparison;
  const int code = Finish(c, o, o.baseline, o.out);
  if (!o.update_baseline || code == 2) return code;
  if (!app::CompleteAndCorrect(run->now)) {
    std::fprintf(stderr, "commbench: error: the baseline stays as it was: the new run %s\n",
                 run->now.trailer.failure.empty() ? "computed a wrong result" : "failed");
    return 1;
  }
  // The runner's noise is kept; its jobs were the old build's.
  std::optional<gate::Calibration> kept;
  if (compare.calibration) kept = gate::WithoutJobs(*compare.calibration);
  s = app::KeepCalibratedBaseline(run->now, kept ? &*kept : nullptr, &run->host, o.baseline);
  if (!s.ok()) return ErrorExit(s.message());
  std::fprintf(stderr, "commbench gate: updated the baseline %s (the comparison above was %s)\n", o.baseline.c_str(),
               gate::Name(c.outcome).c_str());
  return 0;
}

int RunAbGate(GateOptions o, const SweepSpec& given) {
  auto a = app::ParseVariant(o.a, "--a");
  if (!a.ok()) return ErrorExit(a.status().message());
  auto b = app::ParseVariant(o.b, "--b");
  if (!b.ok()) return ErrorExit(b.status().message());
  Status s = CheckWritableOutput(o.out);
  if (s.ok() && !o.out_a.empty()) s = CheckWritableOutput(o.out_a);
  if (!s.ok()) return ErrorExit(s.message());
  for (const std::string& name : app::VariedVariables(*a, *b)) o.compare.varied_variables.insert(name);
  auto sequential = SequentialFrom(o, given.repeats, true);
  if (!sequential.ok()) return ErrorExit(sequential.status().message());
  auto run =
      RunRounds(o, given, "--ab: ", "up to " + std::to_string(given.repeats) + " repeats a side, A and B alternating",
                nullptr, *a, *b, o.compare, *sequential);
  if (!run.ok()) return ErrorExit(run.status().message());
  run->base.header.spec.repeats = run->now.header.spec.repeats = given.repeats;
  if (const int written = WriteSides(*run, o, true); written != 0) return written;
  return Finish(run->comparison, o, "A: " + o.a, "B: " + o.b);
}

}  // namespace commbench::cli
