// `commbench gate`'s two modes (gate.h): each runs through lib/app/gate_run.h; here the progress lines, the
// outputs beside the result and the exit codes (as `compare`: 0 no regression, 1 a regression or a wrong result,
// 2 bad input, 3 inconclusive or incomparable).
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "lib/app/gate_policy.h"
#include "lib/app/gate_run.h"
#include "lib/core/atomic_file.h"
#include "lib/core/temp_dir.h"
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

}  // namespace

int RunBaselineGate(const GateOptions& o, const SweepSpec& given) {
  if (!Exists(o.baseline)) {
    if (!o.update_baseline) return Fail(o.baseline + ": cannot read: " + std::strerror(ENOENT));
    return MeasureFirstBaseline(o, given);
  }
  Status s = o.update_baseline ? CheckWritableOutput(o.baseline) : OkStatus();
  if (!s.ok()) return Fail(s.message());
  auto gate = app::LoadBaselineGate(o.baseline, given, *ToSpec(SweepFlags{}));
  if (!gate.ok()) return Fail(gate.status().message());
  app::GateRunner runner(ToolIdentity(), Invocation(), o.quiet);
  Status ready = runner.Prepare(gate->spec);
  if (!ready.ok()) return Fail(ready.message());
  std::fprintf(stderr, "commbench gate: %zu points x %lld repeats, as %s records\n", runner.points(),
               static_cast<long long>(gate->spec.repeats), o.baseline.c_str());
  app::PipelineOutcome run = runner.Run(gate->spec, o.out);
  if (!run.written.ok()) return Fail(run.written.message());
  if (!Exported(run.result, o.out, o)) return 1;
  if (!run.failure.empty()) std::fprintf(stderr, "commbench gate: the run failed: %s\n", run.failure.c_str());
  const gate::Comparison c = gate::Compare(gate->base, run.result, o.compare);
  const int code = Finish(c, o, o.baseline, o.out);
  if (!o.update_baseline || code == 2) return code;
  if (!app::CompleteAndCorrect(run.result)) {
    std::fprintf(stderr, "commbench: error: the baseline stays as it was: the new run %s\n",
                 run.failure.empty() ? "computed a wrong result" : "failed");
    return 1;
  }
  s = app::KeepAsBaseline(run.result, o.baseline);
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
  SweepSpec once = given;
  once.repeats = 1;
  app::GateRunner runner(ToolIdentity(), Invocation(), o.quiet);
  Status ready = runner.Prepare(once);
  if (!ready.ok()) return Fail(ready.message());
  TempDir dir("commbench-gate-");
  if (dir.path().empty()) return Fail("cannot create a private temporary directory under $TMPDIR or /tmp");
  std::fprintf(stderr, "commbench gate: --ab: %zu points, %lld repeats a side, A and B alternating\n",
               runner.points(), static_cast<long long>(given.repeats));
  app::AbProgress progress;
  progress.starting = [&o](int64_t r, int v) {
    if (!o.quiet) std::fprintf(stderr, "commbench gate: repeat %lld, variant %c\n", static_cast<long long>(r), "AB"[v]);
  };
  progress.failed = [](int v, const std::string& failure) {
    std::fprintf(stderr, "commbench gate: variant %c failed: %s\n", "AB"[v], failure.c_str());
  };
  auto run = app::RunAlternating(runner, once, *a, *b, given.repeats, dir.path(), progress);
  if (!run.ok()) return Fail(run.status().message());
  s = WriteFileAtomically(o.out, app::BaselineText(run->b));
  if (s.ok() && !o.out_a.empty()) s = WriteFileAtomically(o.out_a, app::BaselineText(run->a));
  if (!s.ok()) return Fail(s.message());
  if (!Exported(app::WithoutSamples(run->b), "", o)) return 1;  // as --out keeps it
  const gate::Comparison c = gate::Compare(run->a, run->b, o.compare);
  return Finish(c, o, "A: " + o.a, "B: " + o.b);
}

}  // namespace commbench::cli
