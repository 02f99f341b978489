// `commbench gate`'s two modes (gate.h): each runs through lib/app/gate_run.h; here the progress lines, the
// outputs beside the result and the exit codes (as `compare`: 0 no regression, 1 a regression or a wrong result,
// 2 bad input, 3 inconclusive or incomparable).
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>

#include "lib/app/gate_policy.h"
#include "lib/app/gate_run.h"
#include "lib/core/atomic_file.h"
#include "lib/core/temp_dir.h"
#include "lib/gate/calibration.h"
#include "lib/gate/compare.h"
#include "tools/commbench/command_line.h"
#include "tools/commbench/gate.h"

namespace commbench::cli {
namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "commbench: error: %s\n", message.c_str());
  return 2;
}

bool Exists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

// The new result's exports (--prom, --csv, --trace); false (with the error line) when one could not be written.
bool Exported(const result::ResultFile& file, const std::string& result_path, const GateOptions& o) {
  Status s = WriteExports(file, result_path, o.exports);
  if (!s.ok()) std::fprintf(stderr, "commbench: error: %s\n", s.message().c_str());
  return s.ok();
}

int Finish(const gate::Comparison& c, const GateOptions& o, const std::string& base, const std::string& now) {
  Status emitted = EmitComparison(c, o.flags.outputs, base, now, "gate");
  if (!emitted.ok()) return Fail(emitted.message());
  return c.ExitCode();
}

// No baseline yet: measure the flags' (or the config's) sweep and make it the baseline.
int MeasureFirstBaseline(const GateOptions& o, const SweepSpec& given) {
  app::GateRunner runner(ToolIdentity(), Invocation(), o.quiet);
  Status ready = runner.Prepare(given);
  if (!ready.ok()) return Fail(ready.message());
  app::PipelineOutcome run = runner.Run(given, o.out);
  if (!run.written.ok()) return Fail(run.written.message());
  if (!Exported(run.result, o.out, o)) return 1;
  if (!app::CompleteAndCorrect(run.result)) {
    std::fprintf(stderr, "commbench: error: not writing a baseline from a failed run: %s\n",
                 run.failure.empty() ? "a wrong result" : run.failure.c_str());
    return 1;
  }
  Status s = app::KeepAsBaseline(run.result, o.baseline);
  if (!s.ok()) return Fail(s.message());
  std::fprintf(stderr, "commbench gate: wrote the baseline %s (%zu points)\n", o.baseline.c_str(),
               run.result.points.size());
  return 0;
}

// --budget, --first-look, --look-every, --rerun-disturbed, checked; `planned` the most repeats a side.
StatusOr<app::SequentialOptions> SequentialFrom(const GateOptions& o, int64_t planned, bool stop_early) {
  if (!(o.budget_s >= 0) || !std::isfinite(o.budget_s)) {
    return InvalidArgument("--budget " + std::to_string(o.budget_s) + " (accepted: seconds >= 0; 0: no budget)");
  }
  if (o.first_look < 1) return InvalidArgument("--first-look " + std::to_string(o.first_look) + " (accepted: >= 1)");
  if (o.look_every < 1) return InvalidArgument("--look-every " + std::to_string(o.look_every) + " (accepted: >= 1)");
  if (o.rerun_disturbed < 0) {
    return InvalidArgument("--rerun-disturbed " + std::to_string(o.rerun_disturbed) + " (accepted: >= 0)");
  }
  app::SequentialOptions s;
  s.schedule.planned = std::max<int64_t>(planned, 1);
  s.schedule.first_look = o.first_look;
  s.schedule.look_every = o.look_every;
  s.schedule.stop_early = stop_early;
  s.budget_s = o.budget_s;
  s.max_reruns = o.rerun_disturbed;
  return s;
}

app::SequentialProgress Progress(const GateOptions& o) {
  app::SequentialProgress progress;
  progress.round = [&o](int64_t round, size_t undecided) {
    if (!o.quiet) {
      std::fprintf(stderr, "commbench gate: round %lld, %zu points undecided\n", static_cast<long long>(round),
                   undecided);
    }
  };
  progress.failed = [](const std::string& side, const std::string& failure) {
    std::fprintf(stderr, "commbench gate: %s failed: %s\n", side.c_str(), failure.c_str());
  };
  progress.note = [&o](const std::string& line) {
    if (!o.quiet) std::fprintf(stderr, "commbench gate: disturbed: %s\n", line.c_str());
  };
  return progress;
}

// The sides' results as --out and --out-a keep them (without samples), and the new side's exports. 0, or the
// exit code of a failure to write.
int WriteSides(const app::SequentialOutcome& run, const GateOptions& o, bool ab) {
  Status s = WriteFileAtomically(o.out, app::BaselineText(run.now));
  if (s.ok() && ab && !o.out_a.empty()) s = WriteFileAtomically(o.out_a, app::BaselineText(run.base));
  if (!s.ok()) return Fail(s.message());
  if (!Exported(app::WithoutSamples(run.now), "", o)) return 1;  // as --out keeps it
  return 0;
}

// The rounds every sequential mode runs: `spec`'s points one repeat a launch, in a private temporary directory,
// announced as "commbench gate: <mode><N> points, <plan>". An error is the message to fail with.
StatusOr<app::SequentialOutcome> RunRounds(const GateOptions& o, const SweepSpec& spec, const std::string& mode,
                                           const std::string& plan, const result::ResultFile* stored,
                                           const app::Variant& a, const app::Variant& b,
                                           const gate::CompareOptions& compare,
                                           const app::SequentialOptions& sequential) {
  SweepSpec once = spec;
  once.repeats = 1;
  app::GateRunner runner(ToolIdentity(), Invocation(), o.quiet);
  RETURN_IF_ERROR(runner.Prepare(once));
  TempDir dir("commbench-gate-");
  if (dir.path().empty()) return Internal("cannot create a private temporary directory under $TMPDIR or /tmp");
  std::fprintf(stderr, "commbench gate: %s%zu points, %s\n", mode.c_str(), runner.points(), plan.c_str());
  return app::RunSequential(runner, once, stored, a, b, compare, sequential, dir.path(), Progress(o));
}

// --calibrate: A/A rounds of the baseline's sweep (or, without a baseline yet, the flags'), every planned repeat
// within the budget, and the calibration written beside the baseline. 0 when every point is gateable here, 3 not.
int RunCalibration(const GateOptions& o, const SweepSpec& given) {
  SweepSpec spec = given;
  if (Exists(o.baseline)) {
    auto gate = app::LoadBaselineGate(o.baseline, given, *ToSpec(SweepFlags{}));
    if (!gate.ok()) return Fail(gate.status().message());
    spec = gate->spec;
  }
  const std::string path = gate::CalibrationPath(o.baseline);
  Status s = CheckWritableOutput(path);
  if (!s.ok()) return Fail(s.message());
  auto sequential = SequentialFrom(o, spec.repeats, false);
  if (!sequential.ok()) return Fail(sequential.status().message());
  auto run = RunRounds(o, spec, "--calibrate: ", "A/A, up to " + std::to_string(spec.repeats) + " repeats a side",
                       nullptr, {}, {}, o.compare, *sequential);
  if (!run.ok()) return Fail(run.status().message());
  for (const result::ResultFile* side : {&run->base, &run->now}) {
    if (side->trailer.status == result::RunStatus::kPartial) {  // a noise figure of a broken run is no figure
      std::fprintf(stderr, "commbench gate: no calibration written: the A/A run failed: %s\n",
                   side->trailer.failure.c_str());
      return 3;
    }
  }
  const gate::SequentialRun& rounds = *run->comparison.options.sequential_run;
  const gate::Calibration c = gate::Calibrate(run->base, run->now, rounds.elapsed_s, rounds.rounds, o.budget_s,
                                              sequential->schedule, o.compare);
  s = WriteFileAtomically(path, gate::CalibrationToJson(c).dump(1) + "\n");
  if (!s.ok()) return Fail(s.message());
  std::fputs(gate::CalibrationToText(c).c_str(), stdout);
  std::fprintf(stderr, "commbench gate: wrote the calibration %s\n", path.c_str());
  for (const gate::PointCalibration& p : c.points) {
    if (!p.gateable) return 3;
  }
  return c.points.empty() ? 3 : 0;
}

// The calibration kept beside the baseline, when there is one.
StatusOr<std::shared_ptr<const gate::Calibration>> LoadCalibration(const std::string& baseline) {
  const std::string path = gate::CalibrationPath(baseline);
  std::ifstream in(path);
  if (!in) return std::shared_ptr<const gate::Calibration>();
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  ASSIGN_OR_RETURN(gate::Calibration c, gate::CalibrationFromJson(j, path));
  return std::make_shared<const gate::Calibration>(std::move(c));
}

}  // namespace

int RunBaselineGate(const GateOptions& o, const SweepSpec& given) {
  if (o.calibrate) return RunCalibration(o, given);
  if (!Exists(o.baseline)) {
    if (!o.update_baseline) return Fail(o.baseline + ": cannot read: " + std::strerror(ENOENT));
    return MeasureFirstBaseline(o, given);
  }
  Status s = o.update_baseline ? CheckWritableOutput(o.baseline) : OkStatus();
  if (!s.ok()) return Fail(s.message());
  auto gate = app::LoadBaselineGate(o.baseline, given, *ToSpec(SweepFlags{}));
  if (!gate.ok()) return Fail(gate.status().message());
  auto sequential = SequentialFrom(o, gate->spec.repeats, !o.update_baseline);
  if (!sequential.ok()) return Fail(sequential.status().message());
  sequential->schedule.base_grows = false;
  gate::CompareOptions compare = o.compare;
  auto calibration = LoadCalibration(o.baseline);
  if (!calibration.ok()) return Fail(calibration.status().message());
  compare.calibration = *calibration;
  if (compare.calibration) {
    for (const gate::PointCalibration& p : compare.calibration->points) {
      if (!p.gateable) std::fprintf(stderr, "commbench gate: calibration: ungateable here: %s\n", p.id.c_str());
    }
  }
  auto run = RunRounds(o, gate->spec, "",
                       "up to " + std::to_string(gate->spec.repeats) + " repeats (as " + o.baseline + " records)" +
                           (o.update_baseline ? ", all of them (--update-baseline)" : ", until each is decided"),
                       &gate->base, {}, {}, compare, *sequential);
  if (!run.ok()) return Fail(run.status().message());
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
  s = app::KeepAsBaseline(run->now, o.baseline);
  if (!s.ok()) return Fail(s.message());
  std::fprintf(stderr, "commbench gate: updated the baseline %s (the comparison above was %s)\n", o.baseline.c_str(),
               gate::Name(c.outcome).c_str());
  return 0;
}

int RunAbGate(GateOptions o, const SweepSpec& given) {
  auto a = app::ParseVariant(o.a, "--a");
  if (!a.ok()) return Fail(a.status().message());
  auto b = app::ParseVariant(o.b, "--b");
  if (!b.ok()) return Fail(b.status().message());
  Status s = CheckWritableOutput(o.out);
  if (s.ok() && !o.out_a.empty()) s = CheckWritableOutput(o.out_a);
  if (!s.ok()) return Fail(s.message());
  for (const std::string& name : app::VariedVariables(*a, *b)) o.compare.varied_variables.insert(name);
  auto sequential = SequentialFrom(o, given.repeats, true);
  if (!sequential.ok()) return Fail(sequential.status().message());
  auto run = RunRounds(o, given, "--ab: ",
                       "up to " + std::to_string(given.repeats) + " repeats a side, A and B alternating", nullptr, *a,
                       *b, o.compare, *sequential);
  if (!run.ok()) return Fail(run.status().message());
  run->base.header.spec.repeats = run->now.header.spec.repeats = given.repeats;
  if (const int written = WriteSides(*run, o, true); written != 0) return written;
  return Finish(run->comparison, o, "A: " + o.a, "B: " + o.b);
}

}  // namespace commbench::cli
