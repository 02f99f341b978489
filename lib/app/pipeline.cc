#include "lib/app/pipeline.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <map>
#include <memory>

#include "lib/diagnose/diagnose.h"
#include "lib/launch/driver.h"
#include "lib/launch/interrupt.h"
#include "lib/measure/aggregate.h"
#include "lib/measure/host_load_monitor.h"
#include "lib/measure/host_peak.h"
#include "lib/measure/environment_probe.h"
#include "lib/result/result_writer.h"

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
  auto peaks = GetHostPeaks();
  fingerprint["peaks"] = peaks.ok() ? nlohmann::json{{"memcpy_gbps", peaks->memcpy_gbps},
                                                     {"tcp_loopback_gbps", peaks->tcp_loopback_gbps}}
                                    : nlohmann::json(nullptr);
  auto environment = result::ReadEnvironment(fingerprint);
  if (environment.ok()) return *environment;
  // The fingerprint is ours: a field it cannot fill is a bug worth seeing, not a reason to lose the run.
  std::fprintf(stderr, "commbench: warning: environment fingerprint: %s\n", environment.status().message().c_str());
  result::Environment partial;
  partial.fingerprint = fingerprint;
  return partial;
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
  auto write = [&](result::PointResult point) {
    auto earlier = held.find(point.id);
    std::vector<result::PointResult> all;
    if (earlier != held.end()) all = std::move(earlier->second), held.erase(earlier);
    all.push_back(std::move(point));
    point = result::CombineRepeats(std::move(all));
    RETURN_IF_ERROR((*writer)->AppendPoint(&point));  // the samples go to disk; the summaries stay
    file.points.push_back(std::move(point));
    return OkStatus();
  };
  options.on_point = [&](FinishedPoint&& finished) {
    aggregate.cores_available = finished.cores_available;
    result::PointResult point = AggregatePoint(finished.point, finished.ranks, aggregate);
    point.host_load = host_load.LoadDuring(finished.ranks);
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
      driven = run_plan(plan, options);
    }
    repeat = repeats;  // a failure's leftovers are written at once
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
  DriverOutcome driven = run_repeated(*request.plan);

  result::ResultTrailer& trailer = file.trailer;
  trailer.skipped = request.plan->skipped;
  trailer.diagnosis = diagnose::Diagnose(file);
  while (request.follow_up && driven.failure.empty()) {
    FollowUp next = request.follow_up(file);
    if (next.explain) {
      next.record.first_phase_points = static_cast<int64_t>(file.points.size());
      trailer.explain = std::move(next.record);
    }
    if (next.plan.launches.empty()) break;
    driven = run_repeated(next.plan);
    trailer.skipped.insert(trailer.skipped.end(), next.plan.skipped.begin(), next.plan.skipped.end());
    trailer.diagnosis = diagnose::Diagnose(file);
    if (!next.again) break;
  }

  outcome.failure = driven.failure;
  trailer.status = driven.failure.empty() ? result::RunStatus::kComplete : result::RunStatus::kPartial;
  trailer.failure = driven.failure;
  trailer.duration_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (request.before_finish) request.before_finish(&file);
  outcome.written = (*writer)->Finish(trailer);
  return outcome;
}

}  // namespace commbench::app
