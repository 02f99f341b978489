#include "lib/app/gate_run.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <utility>

#include "lib/core/atomic_file.h"
#include "lib/core/store_dir.h"
#include "lib/gate/calibration.h"
#include "lib/gate/compare.h"
#include "lib/launch/host_settings.h"
#include "lib/measure/host_reference.h"
#include "lib/sweep/planner.h"

namespace commbench::app {

GateRunner::GateRunner(result::ToolInfo tool, std::string command, bool quiet)
    : tool_(std::move(tool)), command_(std::move(command)), quiet_(quiet) {}

Status GateRunner::Prepare(const SweepSpec& spec) {
  ASSIGN_OR_RETURN(backends_, DescribeRegisteredBackends(spec.backends));
  ASSIGN_OR_RETURN(plan_, PlanSweep(spec, backends_));
  RETURN_IF_ERROR(CheckHostSettings(spec));
  if (plan_.point_count() == 0) return InvalidArgument("the sweep has no point that can run here");
  return OkStatus();
}

std::set<std::string> GateRunner::point_ids() const {
  std::set<std::string> ids;
  for (const Launch& launch : plan_.launches) {
    for (const Point& p : launch.points) ids.insert(p.Id());
  }
  return ids;
}

PipelineOutcome GateRunner::Run(const SweepSpec& spec, const std::string& out, const Variant& variant,
                                const std::set<std::string>* only) const {
  Plan subset;
  if (only) {
    subset.skipped = plan_.skipped;
    for (const Launch& launch : plan_.launches) {
      Launch kept = launch;
      kept.points.clear();
      for (const Point& p : launch.points) {
        if (only->count(p.Id())) kept.points.push_back(p);
      }
      if (!kept.points.empty()) subset.launches.push_back(std::move(kept));
    }
  }
  PipelineRequest request;
  request.rank_env = variant.rank_env;
  request.tool = tool_;
  request.plan = only ? &subset : &plan_;
  request.spec = spec;
  request.command = command_;
  request.out = out;
  request.quiet = quiet_;
  return RunPipeline(request);
}

StatusOr<BaselineGate> LoadBaselineGate(const std::string& path, const SweepSpec& given, const SweepSpec& defaults) {
  ASSIGN_OR_RETURN(result::ResultFile base, gate::LoadComparable(path));
  const std::vector<std::string> conflicts = SpecConflicts(given, base.header.spec, defaults);
  if (!conflicts.empty()) {
    return InvalidArgument("the flags ask for another sweep than the baseline records: " + conflicts.front() +
                           " (accepted: the baseline's own spec; measure a new baseline with --update-baseline)");
  }
  BaselineGate gate;
  gate.spec = GateSpec(base.header.spec, given);  // the same spec, repeats included
  gate.base = std::move(base);
  return gate;
}

Status KeepAsBaseline(const result::ResultFile& run, const std::string& path) {
  return ReplaceStoreFile(path, BaselineText(run));
}

StatusOr<AbRun> RunAlternating(const GateRunner& runner, const SweepSpec& once, const Variant& a, const Variant& b,
                               int64_t repeats, const std::string& dir, const AbProgress& progress) {
  std::vector<result::ResultFile> runs[2];
  const Variant* variants[2] = {&a, &b};
  bool failed = false;
  for (int64_t r = 0; r < repeats && !failed; ++r) {
    for (int v = 0; v < 2 && !failed; ++v) {
      SweepSpec spec = once;
      if (variants[v]->uniform_slowdown) spec.test_only_uniform_slowdown = *variants[v]->uniform_slowdown;
      if (progress.starting) progress.starting(r + 1, v);
      PipelineOutcome run = runner.Run(spec, dir + "/" + "ab"[v] + "-" + std::to_string(r) + ".json", *variants[v]);
      if (!run.written.ok()) return run.written;
      failed = !run.failure.empty();
      if (failed && progress.failed) progress.failed(v, run.failure);
      runs[v].push_back(std::move(run.result));
    }
  }
  return AbRun{MergeRepeats(runs[0], repeats), MergeRepeats(runs[1], repeats)};
}

namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

std::string Seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.0f s", s);
  return buf;
}

// One side of a sequential gate: its accepted repeats (one result per run) and its re-runs per point.
struct Side {
  std::string name;  // "A", "B", "new"
  const Variant* variant = nullptr;
  std::vector<result::ResultFile> runs;
  std::map<std::string, int> reruns;
  int64_t files = 0;
};

// One repeat of `ids` on `side`, and at once again for its disturbed repeats while the bound allows; the disturbed
// repeats that are re-run are left out of the side's runs. Sets `failure` when a run failed.
Status RunRepeat(const GateRunner& runner, const SweepSpec& once, std::set<std::string> ids, int64_t round,
                 const SequentialOptions& options, const std::string& dir, const SequentialProgress& progress,
                 gate::SequentialGate* gate, Side* side, std::string* failure) {
  SweepSpec spec = once;
  if (side->variant->uniform_slowdown) spec.test_only_uniform_slowdown = *side->variant->uniform_slowdown;
  while (!ids.empty() && failure->empty()) {
    PipelineOutcome run =
        runner.Run(spec, dir + "/" + side->name + "-" + std::to_string(side->files++) + ".json", *side->variant, &ids);
    if (!run.written.ok()) return run.written;
    *failure = run.failure;
    if (!failure->empty() && progress.failed) progress.failed(side->name, *failure);
    ids.clear();
    const std::string affinity = run.result.header.environment.affinity;
    std::vector<result::PointResult> kept;
    for (result::PointResult& p : run.result.points) {
      const gate::Disturbance d = gate::JudgeRepeat(p, affinity, options.disturbance);
      const bool again = d.disturbed && p.correct && side->reruns[p.id] < options.max_reruns;
      const gate::RepeatRecord record{side->name,       round, d.disturbed, again, d.outside_share,
                                      d.runqueue_share, d.why, d.migrations};
      gate->NoteRepeat(p.id, record);
      if (d.disturbed && progress.note) progress.note(p.id + ": " + gate::Describe(record));
      if (again) {
        ++side->reruns[p.id];
        ids.insert(p.id);
      } else {
        kept.push_back(std::move(p));
      }
    }
    run.result.points = std::move(kept);
    side->runs.push_back(std::move(run.result));
  }
  return OkStatus();
}

result::ResultFile Merged(const Side& side) { return MergeRepeats(side.runs, static_cast<int64_t>(side.runs.size())); }

}  // namespace

StatusOr<SequentialOutcome> RunSequential(const GateRunner& runner, const SweepSpec& once,
                                          const result::ResultFile* stored, const Variant& a, const Variant& b,
                                          const gate::CompareOptions& compare, const SequentialOptions& options,
                                          const std::string& dir, const SequentialProgress& progress) {
  const Clock::time_point start = Clock::now();
  gate::CompareOptions judged = compare;
  judged.paired = !stored;  // --ab: A and B of a round ran back to back
  if (compare.auto_floor && compare.calibration) {
    for (const gate::PointCalibration& p : compare.calibration->points) judged.calibrated_floor[p.id] = p.detectable;
  }
  gate::SequentialGate gate(judged, options.schedule);
  Side sides[2];
  sides[0] = Side{"A", &a, {}, {}, 0};
  sides[1] = Side{stored ? "new" : "B", &b, {}, {}, 0};
  const int first_side = stored ? 1 : 0;
  const std::set<std::string> all = runner.point_ids();
  gate::SequentialRun run;
  run.budget_s = options.budget_s;
  run.planned_repeats = options.schedule.planned;
  run.first_look = options.schedule.first_look;
  run.look_every = options.schedule.look_every;
  run.max_reruns = options.max_reruns;
  double last_round_s = 0;
  std::string failure;
  auto base = [&] { return stored ? *stored : Merged(sides[0]); };
  SequentialOutcome out;
  std::string host_failure;
  gate::HostShift host;
  auto look = [&] {
    if (options.measure_host) {
      host = gate::JudgeHostAgainstJobs(options.base_host, options.base_job_host_s, out.host, compare.decision.alpha);
      gate.SetHost(host);
    }
    // The rounds the budget still affords at the last round's pace (fewer points undecided go faster: a floor).
    int64_t final_rounds = 0;
    if (options.budget_s > 0 && last_round_s > 0) {
      final_rounds = run.rounds + static_cast<int64_t>(std::max(0.0, options.budget_s - Since(start)) / last_round_s);
    }
    gate.Look(base(), Merged(sides[1]), final_rounds);
  };
  while (failure.empty()) {
    std::set<std::string> undecided;
    for (const std::string& id : all) {
      if (!gate.Decided(id)) undecided.insert(id);
    }
    if (undecided.empty()) {
      run.stopped_because = "every point decided";
      break;
    }
    if (run.rounds >= options.schedule.planned) {
      run.stopped_because = "the planned " + std::to_string(options.schedule.planned) + " repeats a side ran";
      break;
    }
    if (options.budget_s > 0 && Since(start) + last_round_s > options.budget_s) {
      run.stopped_because = "the budget of " + Seconds(options.budget_s) + " would be passed by another round";
      break;
    }
    const Clock::time_point round_start = Clock::now();
    ++run.rounds;
    if (progress.round) progress.round(run.rounds, undecided.size());
    if (options.measure_host) {
      // Between rounds, while no rank runs: the host's speed, not the ranks' contention with it.
      const Status sampled = AddHostReferenceSamples(kHostSamplesPerRound, &out.host);
      if (!sampled.ok() && host_failure.empty()) {
        host_failure = sampled.message();
        if (progress.note) progress.note(host_failure + " (the host's speed is not compared)");
      }
    }
    for (int s = first_side; s < 2 && failure.empty(); ++s) {
      RETURN_IF_ERROR(
          RunRepeat(runner, once, undecided, run.rounds, options, dir, progress, &gate, &sides[s], &failure));
    }
    last_round_s = Since(round_start);
    if (!failure.empty()) run.stopped_because = sides[1].runs.empty() ? "a run failed" : "a run failed: " + failure;
    if (IsLook(options.schedule, run.rounds)) {
      look();
      // No timing verdict holds on a host that moved (lib/gate/host_shift.h): more rounds would spend the budget
      // for the same answer.
      if (host.moved && failure.empty()) {
        run.stopped_because = "the host moved since the baseline: " + host.Describe();
        break;
      }
    }
  }
  look();  // the last look, for the points that had repeats since their last
  out.base = base();
  out.now = Merged(sides[1]);
  run.elapsed_s = Since(start);
  out.comparison = gate.Final(out.base, out.now, run);
  return out;
}

std::set<std::string> VariedVariables(const Variant& a, const Variant& b) {
  std::set<std::string> names;
  for (const Variant* side : {&a, &b}) {
    for (const std::string& name : side->Names()) names.insert(name);
  }
  return names;
}

result::ResultFile WithoutSamples(result::ResultFile file) {
  for (result::PointResult& p : file.points) p.samples_us = result::SampleSet{0, {}, ""};
  return file;
}

}  // namespace commbench::app
