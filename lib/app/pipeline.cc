#include "lib/app/pipeline.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <map>
#include <memory>
#include <set>

#include "lib/app/ab_rounds.h"
#include "lib/core/current_exception.h"
#include "lib/diagnose/diagnose.h"
#include "lib/launch/driver.h"
#include "lib/launch/interrupt.h"
#include "lib/measure/aggregate.h"
#include "lib/measure/environment_probe.h"
#include "lib/measure/host_load_monitor.h"
#include "lib/measure/host_peak.h"
#include "lib/result/result_writer.h"
#include "lib/stats/summary.h"

namespace commbench::app {
namespace {

std::string SelfPath() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "commbench";
}

std::string Iso8601Now() {
  std::time_t now = std::time(nullptr);
  std::tm tm;
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// The host fingerprint with its memory-copy and loopback-TCP peaks (cached per host), so that bandwidth reads
// as a fraction of what this machine can do. Runs after the input checks: it initialises the CUDA driver and
// may run a probe.
result::Environment MeasuredEnvironment() {
  nlohmann::json fingerprint = EnvironmentFingerprint();
  // Once per process: a gate runs the pipeline once per repeat, and where no cache directory exists ($HOME and
  // $XDG_CACHE_HOME unset, as in many CI containers) each run would measure the peaks again (0.3 s of both cores).
  static const StatusOr<HostPeaks> peaks = GetHostPeaks();
  fingerprint["peaks"] =
      peaks.ok() ? nlohmann::json{{"memcpy_gbps", peaks->memcpy_gbps}, {"tcp_loopback_gbps", peaks->tcp_loopback_gbps}}
                 : nlohmann::json(nullptr);
  auto environment = result::ReadEnvironment(fingerprint);
  if (environment.ok()) return *environment;
  // The fingerprint is ours: a field it cannot fill is a bug worth seeing, not a reason to lose the run.
  std::fprintf(stderr, "commbench: warning: environment fingerprint: %s\n", environment.status().message().c_str());
  result::Environment partial;
  partial.fingerprint = fingerprint;
  return partial;
}

// CPU time of the calling thread: the driver's work on a point runs on an idle-priority thread, whose wall time
// is mostly waiting for the CPUs the ranks hold.
double ThreadCpuS() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The run's wall time by phase (lib/result/phases.h): before the first launch, the points' own phases (their
// spans on their headline ranks), what the launches took beyond them (ranks leaving, teardown, the driver
// catching up), and what came after. `in_points` holds the points' phases summed, aggregation aside.
result::WallTime SplitWall(double wall_s, double start_s, double launches_s, const result::PhaseSeconds& in_points,
                           double aggregation_s, double writing_s) {
  using result::Phase;
  result::WallTime w;
  w.wall_s = wall_s;
  w.phases = in_points;
  w.phases[Phase::kAggregation] = 0;  // the driver's, off the ranks' path: only its wait is launch_end's
  w.phases[Phase::kStart] = start_s;
  w.phases[Phase::kLaunchEnd] = std::max(launches_s - w.phases.Sum() + start_s, 0.0);
  w.phases[Phase::kFinish] = std::max(wall_s - start_s - launches_s, 0.0);
  w.phases[Phase::kOther] += std::max(wall_s - w.phases.Sum(), 0.0);
  w.driver_aggregation_s = aggregation_s;
  w.driver_writing_s = writing_s;
  return w;
}

result::ResultHeader MakeHeader(const PipelineRequest& request) {
  result::ResultHeader header;
  header.tool = request.tool;
  header.command = request.command;
  header.started_at = Iso8601Now();
  header.spec = request.spec;
  header.environment = MeasuredEnvironment();
  return header;
}

using PointRuns = std::map<std::string, std::vector<result::PointResult>>;

// An interleaved A/B's launches, pair by pair and round by round, into the explain record: round r ran the plan
// forward when r is even and backward when odd, so A came first where the plan holds it before B.
void RecordRounds(const FollowUp& next, const PointRuns& runs, result::ExplainRecord* record) {
  std::map<std::string, size_t> position;
  for (const Launch& l : next.plan.launches) {
    for (const Point& p : l.points) position.emplace(p.Id(), position.size());
  }
  auto side = [](const result::PointResult& p) {
    return result::AbSide{p.id, p.time_us.mean, StandardErrorOfMean(p.time_us),
                          p.host_load ? p.host_load->OutsideCpus() : -1.0};
  };
  for (const AbPair& pair : next.pairs) {
    auto a = runs.find(pair.a), b = runs.find(pair.b);
    if (pair.ab >= record->abs.size() || a == runs.end() || b == runs.end()) continue;
    const bool a_before = position[pair.a] < position[pair.b];
    for (size_t r = 0; r < std::min(a->second.size(), b->second.size()); ++r) {
      record->abs[pair.ab].rounds.push_back(
          {static_cast<int>(r), pair.groups, (r % 2 == 0) == a_before, side(a->second[r]), side(b->second[r])});
    }
  }
}

}  // namespace

// Over 80 lines: the one place the stages meet; its lambdas share the writer, the held repeats and the monitor.
PipelineOutcome RunPipeline(const PipelineRequest& request) {
  PipelineOutcome outcome;
  result::ResultFile& file = outcome.result;
  const auto t0 = std::chrono::steady_clock::now();
  file.header = MakeHeader(request);
  auto writer = result::ResultFileWriter::Open(request.out, file.header);
  if (!writer.ok()) {
    outcome.written = writer.status();
    outcome.failure = writer.status().message();
    return outcome;
  }

  InstallInterruptHandlers();
  DriverOptions options;
  options.binary = SelfPath();
  options.spec = request.spec;
  options.rank_env = request.rank_env;
  if (!request.quiet) options.progress = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  AggregateOptions aggregate;
  aggregate.sample_cap = request.spec.sample_cap;
  HostLoadMonitor host_load;  // load from outside the ranks, sampled while they run (docs/design.md §6)
  // Independent repeats (--repeats): the whole plan runs again, every launch fresh, so that repeat k of every
  // point runs before repeat k+1 of any. A point is written once, after its last repeat, with every repeat's
  // figures (result::CombineRepeats); the earlier repeats wait as summaries, without their samples.
  const int64_t repeats = std::max<int64_t>(request.spec.repeats, 1);
  int64_t repeat = 0;
  std::map<std::string, std::vector<result::PointResult>> held;
  std::vector<std::string> held_order;
  // Where the time goes: every repeat's points' phases, and the driver's own work on them.
  result::PhaseSeconds in_points;
  double aggregation_s = 0, writing_s = 0, launches_s = 0, start_s = -1;
  auto write = [&](result::PointResult point) {
    const double t_write = ThreadCpuS();
    auto earlier = held.find(point.id);
    std::vector<result::PointResult> all;
    if (earlier != held.end()) all = std::move(earlier->second), held.erase(earlier);
    all.push_back(std::move(point));
    point = result::CombineRepeats(std::move(all));
    RETURN_IF_ERROR((*writer)->AppendPoint(&point));  // the samples go to disk; the summaries stay
    file.points.push_back(std::move(point));
    writing_s += ThreadCpuS() - t_write;
    return OkStatus();
  };
  PointRuns* ab_runs = nullptr;  // set while an interleaved A/B runs: its launches, kept rather than written
  options.on_point = [&](FinishedPoint&& finished) {
    const double t_aggregate = ThreadCpuS();
    aggregate.cores_available = finished.cores_available;
    aggregate.launch_start_ns = finished.launch_start_ns;
    result::PointResult point = AggregatePoint(finished.point, finished.ranks, aggregate);
    point.host_load = host_load.LoadDuring(finished.ranks);
    const double point_aggregation_s = finished.parse_s + ThreadCpuS() - t_aggregate;
    aggregation_s += point_aggregation_s;
    if (point.phases) {
      (*point.phases)[result::Phase::kAggregation] = point_aggregation_s;
      in_points.Add(*point.phases);
    }
    if (ab_runs) {
      std::vector<result::PointResult>& runs = (*ab_runs)[point.id];
      if (!runs.empty()) runs.back().samples_us.per_rank = {};  // the last round's samples are the ones written
      runs.push_back(std::move(point));
      return OkStatus();
    }
    if (repeat + 1 >= repeats) return write(std::move(point));
    point.samples_us.per_rank = {};
    std::vector<result::PointResult>& mine = held[point.id];
    if (mine.empty()) held_order.push_back(point.id);
    mine.push_back(std::move(point));
    return OkStatus();
  };
  auto run_plan = request.run_plan ? request.run_plan : RunPlan;
  // Every plan, the follow-ups' too (accept's later phases, --explain's A/B points), runs `repeats` times: a
  // profile's repeats apply to every check, and a repeated sweep's A/B sides are judged like its other points.
  auto run_repeated = [&](const Plan& plan) {
    DriverOutcome driven;
    for (repeat = 0; repeat < repeats && driven.failure.empty(); ++repeat) {
      if (repeats > 1 && options.progress) {
        options.progress("repeat " + std::to_string(repeat + 1) + "/" + std::to_string(repeats));
      }
      const auto t_plan = std::chrono::steady_clock::now();
      if (start_s < 0) start_s = std::chrono::duration<double>(t_plan - t0).count();
      driven = run_plan(plan, options);
      launches_s += SecondsSince(t_plan);
    }
    repeat = repeats;                           // a failure's leftovers are written at once
    for (const std::string& id : held_order) {  // a failure stopped the repeats: what ran is still recorded
      if (!held.count(id)) continue;
      result::PointResult last = std::move(held[id].back());
      held[id].pop_back();
      Status s = write(std::move(last));
      if (!s.ok() && driven.failure.empty()) driven.failure = s.message();
    }
    held.clear();
    held_order.clear();
    return driven;
  };
  result::ResultTrailer& trailer = file.trailer;
  // An interleaved A/B (FollowUp::pairs): rounds forward and backward; the points the file lacks are written once.
  auto run_interleaved = [&](const FollowUp& next) {
    PointRuns runs;
    ab_runs = &runs;
    const SweepSpec sweep_spec = options.spec;
    options.spec = RoundSpec(sweep_spec, next.loop_share);
    const Plan rounds = AlternatingRounds(next.plan, next.rounds);
    if (options.progress) {
      options.progress("A/B: " + std::to_string(next.rounds) + " rounds (A B, B A, ...) in " +
                       std::to_string(rounds.launches.size()) + " launches");
    }
    const auto t_plan = std::chrono::steady_clock::now();
    DriverOutcome driven = run_plan(rounds, options);
    launches_s += SecondsSince(t_plan);
    ab_runs = nullptr;
    options.spec = sweep_spec;
    if (trailer.explain) RecordRounds(next, runs, &*trailer.explain);
    std::set<std::string> in_file;
    for (const result::PointResult& p : file.points) in_file.insert(p.id);
    for (const Launch& l : next.plan.launches) {
      for (const Point& p : l.points) {
        auto it = runs.find(p.Id());
        if (it == runs.end() || !in_file.insert(p.Id()).second) continue;
        result::PointResult last = std::move(it->second.back());
        it->second.pop_back();
        held[p.Id()] = std::move(it->second);
        Status s = write(std::move(last));
        if (!s.ok() && driven.failure.empty()) driven.failure = s.message();
      }
    }
    held.clear();
    return driven;
  };
  DriverOutcome driven;
  trailer.skipped = request.plan->skipped;
  // An exception while measuring or diagnosing (out of memory, a library's) ends the run as a failure: what was
  // measured is still written, and the temporary files go with the writer, which std::terminate would skip.
  try {
    driven = run_repeated(*request.plan);
    trailer.diagnosis = diagnose::Diagnose(file);
    while (request.follow_up && driven.failure.empty()) {
      FollowUp next = request.follow_up(file);
      if (next.explain) {
        next.record.first_phase_points = static_cast<int64_t>(file.points.size());
        trailer.explain = std::move(next.record);
      }
      if (next.plan.launches.empty()) break;
      driven = next.pairs.empty() ? run_repeated(next.plan) : run_interleaved(next);
      trailer.skipped.insert(trailer.skipped.end(), next.plan.skipped.begin(), next.plan.skipped.end());
      trailer.diagnosis = diagnose::Diagnose(file);
      if (!next.again) break;
    }
  } catch (...) {
    driven.failure = CurrentExceptionText();
  }

  outcome.failure = driven.failure;
  trailer.status = driven.failure.empty() ? result::RunStatus::kComplete : result::RunStatus::kPartial;
  trailer.failure = driven.failure;
  trailer.duration_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  trailer.wall = SplitWall(trailer.duration_s, std::max(start_s, 0.0), launches_s, in_points, aggregation_s, writing_s);
  try {
    if (request.before_finish) request.before_finish(&file);
    outcome.written = (*writer)->Finish(trailer);
  } catch (...) {  // nothing was renamed into place: the writer removes its temporary files
    outcome.written = Internal(request.out + ": the result was not written: " + CurrentExceptionText());
  }
  return outcome;
}

}  // namespace commbench::app
