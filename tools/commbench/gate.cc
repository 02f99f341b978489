// `commbench gate`: the CI performance-regression gate (docs/design.md §7, issue 13).
//   gate --baseline BASE.json   runs the sweep BASE records (its spec, repeats included) and compares the result
//                               with BASE (lib/gate); --update-baseline then writes the new result over BASE.
//   gate --ab --a K=V --b K=V   runs variant A and variant B alternately in this job (A B A B ..., one repeat
//                               of every point each time, fresh launches), the variants being environment
//                               assignments for the rank processes, and compares B against A.
// Exit codes as `compare`: 0 no regression, 1 a regression or a wrong result, 2 bad input, 3 inconclusive or
// incomparable. Every input is checked, and every output path, before any rank starts.
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "lib/backend/backend.h"
#include "lib/core/atomic_file.h"
#include "lib/core/temp_dir.h"
#include "lib/gate/compare.h"
#include "lib/launch/host_settings.h"
#include "lib/result/result_file.h"
#include "lib/result/result_writer.h"
#include "lib/sweep/planner.h"
#include "lib/model/point_json.h"
#include "tools/commbench/command_line.h"
#include "tools/commbench/commands.h"
#include "tools/commbench/comparison_outputs.h"
#include "tools/commbench/config_flags.h"
#include "tools/commbench/export_flags.h"
#include "lib/app/gate_policy.h"
#include "lib/app/pipeline.h"
#include "tools/commbench/sweep_flags.h"

namespace commbench::cli {

using app::FollowUp;
using app::PipelineOutcome;
using app::RunPipeline;
using app::BaselineText;
using app::CompleteAndCorrect;
using app::MergeRepeats;
using app::ParseVariant;
using app::SpecConflicts;
namespace {

struct GateOptions {
  SweepFlags sweep;
  std::string baseline;
  std::string config;
  std::string out = "commbench-gate.json";
  std::string out_a;  // --ab: variant A's result too
  bool update_baseline = false;
  bool ab = false;
  std::string a, b;
  bool quiet = false;
  ComparisonFlags flags;
  gate::CompareOptions compare;
  ExportFlags exports;  // --prom, --csv, --trace of the new result
};

int Fail(const std::string& message) {
  std::fprintf(stderr, "commbench: error: %s\n", message.c_str());
  return 2;
}

bool Exists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

struct Runner {
  const GateOptions& o;
  std::vector<BackendDescription> backends;
  Plan plan;

  // Plans the spec; a bad spec is bad input.
  Status Prepare(const SweepSpec& spec) {
    ASSIGN_OR_RETURN(backends, DescribeRegisteredBackends(spec.backends));
    ASSIGN_OR_RETURN(plan, PlanSweep(spec, backends));
    RETURN_IF_ERROR(CheckHostSettings(spec));
    if (plan.point_count() == 0) return InvalidArgument("the sweep has no point that can run here");
    return OkStatus();
  }

  PipelineOutcome Run(const SweepSpec& spec, const std::string& out, const app::Variant& variant = {}) {
    app::PipelineRequest request;
    request.rank_env = variant.rank_env;
    request.tool = ToolIdentity();
    request.plan = &plan;
    request.spec = spec;
    request.command = Invocation();
    request.out = out;
    request.quiet = o.quiet;
    return RunPipeline(request);
  }
};

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

int RunBaselineGate(GateOptions o, const SweepSpec& given) {
  if (!Exists(o.baseline)) {
    if (!o.update_baseline) return Fail(o.baseline + ": cannot read: " + std::strerror(ENOENT));
    // No baseline yet: measure the flags' (or the config's) sweep and make it the baseline.
    Runner runner{o, {}, {}};
    Status ready = runner.Prepare(given);
    if (!ready.ok()) return Fail(ready.message());
    PipelineOutcome run = runner.Run(given, o.out);
    if (!run.written.ok()) return Fail(run.written.message());
    if (!Exported(run.result, o.out, o)) return 1;
    if (!CompleteAndCorrect(run.result)) {
      std::fprintf(stderr, "commbench: error: not writing a baseline from a failed run: %s\n",
                   run.failure.empty() ? "a wrong result" : run.failure.c_str());
      return 1;
    }
    Status s = WriteFileAtomically(o.baseline, BaselineText(run.result));
    if (!s.ok()) return Fail(s.message());
    std::fprintf(stderr, "commbench gate: wrote the baseline %s (%zu points)\n", o.baseline.c_str(),
                 run.result.points.size());
    return 0;
  }
  if (o.update_baseline) {
    Status writable = CheckWritableOutput(o.baseline);
    if (!writable.ok()) return Fail(writable.message());
  }
  auto base = gate::LoadComparable(o.baseline);
  if (!base.ok()) return Fail(base.status().message());
  const std::vector<std::string> conflicts = SpecConflicts(given, base->header.spec, *ToSpec(SweepFlags{}));
  if (!conflicts.empty()) {
    return Fail("the flags ask for another sweep than the baseline records: " + conflicts.front() +
                " (accepted: the baseline's own spec; measure a new baseline with --update-baseline)");
  }
  const SweepSpec spec = app::GateSpec(base->header.spec, given);  // the same spec, repeats included
  Runner runner{o, {}, {}};
  Status ready = runner.Prepare(spec);
  if (!ready.ok()) return Fail(ready.message());
  std::fprintf(stderr, "commbench gate: %zu points x %lld repeats, as %s records\n", runner.plan.point_count(),
               static_cast<long long>(spec.repeats), o.baseline.c_str());
  PipelineOutcome run = runner.Run(spec, o.out);
  if (!run.written.ok()) return Fail(run.written.message());
  if (!Exported(run.result, o.out, o)) return 1;
  if (!run.failure.empty()) std::fprintf(stderr, "commbench gate: the run failed: %s\n", run.failure.c_str());
  const gate::Comparison c = gate::Compare(*base, run.result, o.compare);
  const int code = Finish(c, o, o.baseline, o.out);
  if (!o.update_baseline || code == 2) return code;
  if (!CompleteAndCorrect(run.result)) {
    std::fprintf(stderr, "commbench: error: the baseline stays as it was: the new run %s\n",
                 run.failure.empty() ? "computed a wrong result" : "failed");
    return 1;
  }
  Status s = WriteFileAtomically(o.baseline, BaselineText(run.result));
  if (!s.ok()) return Fail(s.message());
  std::fprintf(stderr, "commbench gate: updated the baseline %s (the comparison above was %s)\n", o.baseline.c_str(),
               gate::Name(c.outcome).c_str());
  return 0;
}

int RunAbGate(GateOptions o, const SweepSpec& given) {
  auto a = ParseVariant(o.a, "--a");
  if (!a.ok()) return Fail(a.status().message());
  auto b = ParseVariant(o.b, "--b");
  if (!b.ok()) return Fail(b.status().message());
  Status writable = CheckWritableOutput(o.out);
  if (writable.ok() && !o.out_a.empty()) writable = CheckWritableOutput(o.out_a);
  if (!writable.ok()) return Fail(writable.message());
  for (const auto* side : {&*a, &*b}) {
    for (const std::string& name : side->Names()) o.compare.varied_variables.insert(name);
  }
  SweepSpec once = given;
  once.repeats = 1;
  Runner runner{o, {}, {}};
  Status ready = runner.Prepare(once);
  if (!ready.ok()) return Fail(ready.message());
  TempDir dir("commbench-gate-");
  if (dir.path().empty()) return Fail("cannot create a private temporary directory under $TMPDIR or /tmp");
  std::fprintf(stderr, "commbench gate: --ab: %zu points, %lld repeats a side, A and B alternating\n",
               runner.plan.point_count(), static_cast<long long>(given.repeats));
  std::vector<result::ResultFile> runs[2];
  const app::Variant* variants[2] = {&*a, &*b};
  bool failed = false;
  for (int64_t r = 0; r < given.repeats && !failed; ++r) {
    for (int v = 0; v < 2 && !failed; ++v) {
      SweepSpec spec = once;
      if (variants[v]->uniform_slowdown) spec.test_only_uniform_slowdown = *variants[v]->uniform_slowdown;
      if (!o.quiet) std::fprintf(stderr, "commbench gate: repeat %lld, variant %c\n", static_cast<long long>(r + 1), "AB"[v]);
      PipelineOutcome run = runner.Run(spec, dir.path() + "/" + "ab"[v] + "-" + std::to_string(r) + ".json", *variants[v]);
      if (!run.written.ok()) return Fail(run.written.message());
      failed = !run.failure.empty();
      if (failed) std::fprintf(stderr, "commbench gate: variant %c failed: %s\n", "AB"[v], run.failure.c_str());
      runs[v].push_back(std::move(run.result));
    }
  }
  const result::ResultFile merged_a = MergeRepeats(runs[0], given.repeats);
  const result::ResultFile merged_b = MergeRepeats(runs[1], given.repeats);
  Status s = WriteFileAtomically(o.out, BaselineText(merged_b));
  if (s.ok() && !o.out_a.empty()) s = WriteFileAtomically(o.out_a, BaselineText(merged_a));
  if (!s.ok()) return Fail(s.message());
  result::ResultFile exported = merged_b;  // as --out keeps it: its samples stayed with the runs' files
  for (result::PointResult& p : exported.points) p.samples_us = result::SampleSet{0, {}, ""};
  if (!Exported(exported, "", o)) return 1;
  const gate::Comparison c = gate::Compare(merged_a, merged_b, o.compare);
  return Finish(c, o, "A: " + o.a, "B: " + o.b);
}

int RunGate(GateOptions o) {
  Status floors = ApplyComparisonFlags(o.flags, &o.compare);
  if (!floors.ok()) return Fail(floors.message());
  if (o.ab == !o.baseline.empty()) {
    return Fail(o.ab ? "--ab compares two variants in this job: it takes no --baseline"
                     : "nothing to compare with (accepted: --baseline FILE, or --ab --a K=V --b K=V)");
  }
  if (!o.ab && (!o.a.empty() || !o.b.empty())) return Fail("--a and --b need --ab");
  if (o.ab && o.update_baseline) return Fail("--update-baseline needs --baseline (--ab keeps no baseline)");
  if (!o.ab && !o.out_a.empty()) return Fail("--out-a needs --ab (it is variant A's result)");
  if (!o.out_a.empty() && o.out_a == o.out) return Fail("--out-a " + o.out_a + " is also --out (accepted: two paths)");
  Status writable = CheckComparisonOutputs(o.flags.outputs);
  if (writable.ok()) writable = CheckWritableOutput(o.out);
  if (writable.ok()) writable = CheckWritableOutput(result::SamplesSidecarPath(o.out));
  if (writable.ok()) writable = CheckExportFlags(o.exports, {o.out, result::SamplesSidecarPath(o.out), o.out_a, o.baseline});
  if (!writable.ok()) return Fail(writable.message());
  auto given = ToSpec(o.sweep);
  if (!given.ok()) return Fail(given.status().message());
  return o.ab ? RunAbGate(o, *given) : RunBaselineGate(o, *given);
}

}  // namespace

void SetupGate(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<GateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "gate",
      "CI regression gate: run the sweep a baseline records and compare (or --ab: two variants alternately in "
      "this job). Exit 0 no regression, 1 regression or wrong result, 2 bad input, 3 inconclusive or "
      "incomparable.");
  cmd->footer(
      "Examples:\n"
      "  commbench gate --baseline baseline.json --junit gate.xml --json gate.json --html gate.html\n"
      "  commbench gate --baseline baseline.json --update-baseline        # refresh it (same runner type!)\n"
      "  commbench gate --baseline baseline.json --config configs/gate/ci.yaml --update-baseline  # first one\n"
      "  commbench gate --ab --a NCCL_ALGO=Ring --b NCCL_ALGO=Tree --config configs/gate/gpu.yaml\n"
      "  commbench gate --ab --a LD_LIBRARY_PATH=old/ --b LD_LIBRARY_PATH=new/ --groups 1,2 --repeats 6");
  cmd->add_option("--baseline", o->baseline, "the baseline result JSON (from sweep --repeats, or gate --update-baseline)");
  cmd->add_flag("--update-baseline", o->update_baseline,
                "write the new result over the baseline (atomically; only a regular file) when it ran completely "
                "and correctly; without a baseline file, measure the flags' sweep and make it the baseline");
  cmd->add_flag("--ab", o->ab, "run variants A and B alternately in this job (A B A B ...) and compare B against A");
  cmd->add_option("--a", o->a, "variant A: NAME=VALUE[,NAME=VALUE...] for the rank processes");
  cmd->add_option("--b", o->b, "variant B: NAME=VALUE[,NAME=VALUE...] for the rank processes");
  cmd->add_option("--out,-o", o->out, "the new result (B with --ab), without raw samples")->capture_default_str();
  cmd->add_option("--out-a", o->out_a, "--ab: also write variant A's result here (without raw samples)");
  AddComparisonFlags(cmd, &o->flags);
  AddExportFlags(cmd, &o->exports);
  cmd->add_flag("--quiet,-q", o->quiet, "No progress lines");
  AddSweepFlags(cmd, &o->sweep);
  cmd->add_option("--config", o->config,
                  "YAML or JSON file of these flags (keys are flag names without dashes); the command line wins");
  cmd->callback([o, exit_code, cmd] {
    if (!o->config.empty()) {
      ConfigScope scope;
      scope.own_section = true;
      scope.section_flags = {"baseline", "update-baseline", "ab", "a", "b", "out", "out-a", "json", "junit", "html",
                             "summary", "min-effect", "min-effect-below", "allow-env-drift", "quiet", "prom",
                             "csv", "csv-repeats", "csv-samples", "trace"};
      const std::vector<std::string> problems = ApplyConfigFile(o->config, cmd, scope);
      for (const std::string& p : problems) std::fprintf(stderr, "commbench: error: %s\n", p.c_str());
      if (!problems.empty()) {
        *exit_code = 2;
        return;
      }
    }
    *exit_code = RunGate(*o);
  });
}

}  // namespace commbench::cli
