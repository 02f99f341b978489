// `commbench gate`: the CI performance-regression gate (DESIGN §7, issue 13).
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
#include "tools/commbench/pipeline.h"
#include "tools/commbench/sweep_flags.h"

namespace commbench::cli {
namespace {

// TEST ONLY: in a variant, this assignment is --test-only-uniform-slowdown for that variant's runs (so that a
// planted slowdown can be an A/B), not a variable.
constexpr const char* kSlowdownVariable = "COMMBENCH_TEST_ONLY_UNIFORM_SLOWDOWN";

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

struct Assignment {
  std::string name, value;
};

// "K=V[,K=V...]" (empty: no assignment).
StatusOr<std::vector<Assignment>> ParseVariant(const std::string& text, const char* flag) {
  static const std::regex kName("[A-Za-z_][A-Za-z0-9_]*");
  std::vector<Assignment> out;
  if (text.empty()) return out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const size_t eq = item.find('=');
    if (eq == std::string::npos || !std::regex_match(item.substr(0, eq), kName)) {
      return InvalidArgument(std::string(flag) + ": invalid assignment '" + item +
                             "' (accepted: NAME=VALUE[,NAME=VALUE...], e.g. NCCL_ALGO=Ring or LD_LIBRARY_PATH=old/)");
    }
    Assignment a{item.substr(0, eq), item.substr(eq + 1)};
    if (a.name == kSlowdownVariable) {
      char* end = nullptr;
      const double f = std::strtod(a.value.c_str(), &end);
      if (a.value.empty() || *end != '\0' || !(f >= 0 && f <= 10)) {
        return InvalidArgument(std::string(flag) + ": invalid value '" + a.value + "' for " + kSlowdownVariable +
                               " (accepted: a fraction from 0 to 10)");
      }
    }
    out.push_back(std::move(a));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

// Sets a variant's variables for the rank processes this process spawns, and puts the previous values back.
class ScopedVariant {
 public:
  ScopedVariant(const std::vector<Assignment>& assignments, SweepSpec* spec) {
    for (const Assignment& a : assignments) {
      if (a.name == kSlowdownVariable) {
        spec->test_only_uniform_slowdown = std::strtod(a.value.c_str(), nullptr);
        continue;
      }
      const char* old = std::getenv(a.name.c_str());
      saved_.push_back({a.name, old ? std::optional<std::string>(old) : std::nullopt});
      setenv(a.name.c_str(), a.value.c_str(), 1);
    }
  }
  ~ScopedVariant() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->second) {
        setenv(it->first.c_str(), it->second->c_str(), 1);
      } else {
        unsetenv(it->first.c_str());
      }
    }
  }

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

// The sweep keys the flags (or the config) set to something else than the defaults: in --baseline mode they must
// agree with the baseline's spec (the gate runs the same spec). TEST ONLY settings may differ.
std::vector<std::string> SpecConflicts(const SweepSpec& given, const SweepSpec& baseline) {
  auto defaults = ToSpec(SweepFlags{});
  const nlohmann::json g = SpecToJson(given), d = defaults.ok() ? SpecToJson(*defaults) : nlohmann::json::object(),
                       b = SpecToJson(baseline);
  std::vector<std::string> out;
  for (const auto& [key, value] : g.items()) {
    if (key.rfind("test_only_", 0) == 0 || key == "explain_factors") continue;
    if (d.contains(key) && d[key] == value) continue;  // not set
    if (!b.contains(key) || b[key] != value) {
      out.push_back(key + " " + value.dump() + " (the baseline's: " + (b.contains(key) ? b[key].dump() : "none") + ")");
    }
  }
  return out;
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

  PipelineOutcome Run(const SweepSpec& spec, const std::string& out) {
    PipelineRequest request;
    request.plan = &plan;
    request.spec = spec;
    request.command = Invocation();
    request.out = out;
    request.quiet = o.quiet;
    return RunPipeline(request);
  }
};

// A result as a baseline keeps it: without raw samples (the sidecar they were in is the run's, not the baseline's).
std::string BaselineText(result::ResultFile file) {
  for (result::PointResult& p : file.points) p.samples_us = result::SampleSet{0, {}, ""};
  return result::ResultFileToJson(file).dump(1) + "\n";
}

// The new result's exports (--prom, --csv, --trace); false (with the error line) when one could not be written.
bool Exported(const result::ResultFile& file, const std::string& result_path, const GateOptions& o) {
  Status s = WriteExports(file, result_path, o.exports);
  if (!s.ok()) std::fprintf(stderr, "commbench: error: %s\n", s.message().c_str());
  return s.ok();
}

bool CompleteAndCorrect(const result::ResultFile& file) {
  if (file.trailer.status != result::RunStatus::kComplete) return false;
  for (const result::PointResult& p : file.points) {
    if (!p.correct) return false;
  }
  return true;
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
  const std::vector<std::string> conflicts = SpecConflicts(given, base->header.spec);
  if (!conflicts.empty()) {
    return Fail("the flags ask for another sweep than the baseline records: " + conflicts.front() +
                " (accepted: the baseline's own spec; measure a new baseline with --update-baseline)");
  }
  SweepSpec spec = base->header.spec;  // the same spec, repeats included
  spec.explain_factors.clear();
  spec.test_only_uniform_slowdown = given.test_only_uniform_slowdown;
  spec.test_only_slow_rank = given.test_only_slow_rank;
  spec.test_only_hang_rank = given.test_only_hang_rank;
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

// The repeats of one variant, each a one-repeat result, as one result: each point's repeats in one record.
result::ResultFile MergeRepeats(const std::vector<result::ResultFile>& runs, int64_t repeats) {
  result::ResultFile merged;
  if (runs.empty()) return merged;
  merged.header = runs.front().header;
  merged.header.spec.repeats = repeats;
  merged.trailer = runs.back().trailer;
  std::vector<std::string> order;
  std::map<std::string, std::vector<result::PointResult>> by_id;
  for (const result::ResultFile& run : runs) {
    for (const result::PointResult& p : run.points) {
      if (by_id[p.id].empty()) order.push_back(p.id);
      by_id[p.id].push_back(p);
    }
    if (run.trailer.status == result::RunStatus::kPartial) {
      merged.trailer.status = result::RunStatus::kPartial;
      merged.trailer.failure = run.trailer.failure;
    }
  }
  if (static_cast<int64_t>(runs.size()) < repeats && merged.trailer.status == result::RunStatus::kComplete) {
    merged.trailer.status = result::RunStatus::kPartial;
    merged.trailer.failure = "ran " + std::to_string(runs.size()) + " of " + std::to_string(repeats) + " repeats";
  }
  for (const std::string& id : order) merged.points.push_back(result::CombineRepeats(std::move(by_id[id])));
  return merged;
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
    for (const Assignment& v : *side) o.compare.varied_variables.insert(v.name);
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
  const std::vector<Assignment>* variants[2] = {&*a, &*b};
  bool failed = false;
  for (int64_t r = 0; r < given.repeats && !failed; ++r) {
    for (int v = 0; v < 2 && !failed; ++v) {
      SweepSpec spec = once;
      PipelineOutcome run;
      {
        ScopedVariant scoped(*variants[v], &spec);
        if (!o.quiet) std::fprintf(stderr, "commbench gate: repeat %lld, variant %c\n", static_cast<long long>(r + 1), "AB"[v]);
        run = runner.Run(spec, dir.path() + "/" + "ab"[v] + "-" + std::to_string(r) + ".json");
      }
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
