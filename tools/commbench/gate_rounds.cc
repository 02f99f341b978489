// The rounds every sequential mode of `commbench gate` runs (gate.h): the sequential flags checked, the runner
// prepared in a private temporary directory, the progress lines, lib/app/gate_run.h's rounds, and the outputs
// written after them.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "lib/app/gate_policy.h"
#include "lib/app/gate_run.h"
#include "lib/core/atomic_file.h"
#include "lib/core/temp_dir.h"
#include "tools/commbench/command_line.h"
#include "tools/commbench/gate.h"

namespace commbench::cli {
namespace {

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

}  // namespace

StatusOr<app::SequentialOptions> SequentialFrom(const GateOptions& o, int64_t planned, bool stop_early) {
  if (!(o.budget_s >= 0) || !std::isfinite(o.budget_s)) {
    char given[32];
    std::snprintf(given, sizeof(given), "%g", o.budget_s);
    return InvalidArgument("--budget " + std::string(given) + " (accepted: seconds >= 0; 0: no budget)");
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

bool Exported(const result::ResultFile& file, const std::string& result_path, const GateOptions& o) {
  Status s = WriteExports(file, result_path, o.exports);
  if (!s.ok()) ErrorExit(s.message());
  return s.ok();
}

int WriteSides(const app::SequentialOutcome& run, const GateOptions& o, bool ab) {
  Status s = WriteFileAtomically(o.out, app::BaselineText(run.now));
  if (s.ok() && ab && !o.out_a.empty()) s = WriteFileAtomically(o.out_a, app::BaselineText(run.base));
  if (!s.ok()) return ErrorExit(s.message());
  if (!Exported(app::WithoutSamples(run.now), "", o)) return 1;  // as --out keeps it
  return 0;
}

int Finish(const gate::Comparison& c, const GateOptions& o, const std::string& base, const std::string& now) {
  Status emitted = EmitComparison(c, o.flags.outputs, base, now, "gate");
  if (!emitted.ok()) return ErrorExit(emitted.message());
  return c.ExitCode();
}

void SayUngateable(const gate::Calibration& calibration) {
  for (const gate::PointCalibration& p : calibration.points) {
    if (!p.gateable) {
      std::fprintf(stderr, "commbench gate: calibration: ungateable here: %s: %s\n", p.id.c_str(),
                   gate::UngateableText(p).c_str());
    }
  }
}

}  // namespace commbench::cli
