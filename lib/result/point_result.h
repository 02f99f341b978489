// A point's result as the result file records it (docs/result-format.md): its axes, the summaries across ranks,
// bandwidth, CPU evidence, skew, per-group and per-rank figures, and (capped) raw samples.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "lib/core/axes.h"
#include "lib/core/name_table.h"
#include "lib/core/status.h"
#include "lib/model/point.h"
#include "lib/result/host_load.h"
#include "lib/result/phases.h"
#include "lib/result/rank_traffic.h"
#include "lib/stats/summary.h"

namespace commbench::result {

struct CpuUsage {
  double cpu_s_total = 0;
  int cores_available = 0;
  double saturation = 0;  // CPU s / (cores x wall)
  double threads_per_core = 0;
  double vol_ctx_per_iter = 0, invol_ctx_per_iter = 0;  // per rank per iteration
  // The most any rank waited for a CPU (runnable, on a run queue) over the timed loop, per timed iteration, in
  // us; -1 where no rank could say (and in files written before it was recorded).
  double runqueue_wait_us_per_iter = -1;
  // The most any rank's thread moved between CPUs over its timed loop (a count, not per iteration: the gate asks
  // whether a pinned rank moved at all, lib/gate/disturbance.h); -1 where no rank could say (and in older files).
  int64_t migrations = -1;
  // The tightest cgroup CPU limit of the ranks' processes in CPUs (lib/core/cpu_quota.h); 0: none (and in older
  // files). cores_available is the affinity mask's count: the ranks may use the smaller of the two.
  double cpu_quota = 0;
  // The largest share of enforcement periods over a rank's timed loop in which its cgroup ran out of quota; -1
  // where no rank had a limit to read.
  double throttled_share = -1;
};

struct Skew {
  double start_skew_us = 0;
  int slowest_group = 0, slowest_rank = 0;
};

struct GroupTime {
  int group = 0;
  double p50_us = 0, mean_us = 0;
  std::vector<std::string> hosts;  // the addresses its ranks ran on, in rank order, each once ([] in older files)
  // Transfer and arrival (issue 52, Arrival below): the medians of this group's own series; absent in older files.
  std::optional<double> transfer_p50_us, skew_p50_us;
  // The rank that arrived last in most iterations and the share it did (lib/measure/arrival.h); absent in older
  // files and for a group of one rank.
  std::optional<int> last_arrival_rank;
  std::optional<double> last_arrival_share;
};

// --- Transfer and arrival (issue 52) ---
// A synchronous collective turns every late rank into everyone's wait, so one time per iteration cannot tell an
// operation that got slower from ranks that arrive at it late. Per iteration, over one group's ranks (their
// iterations aligned by index), as TraceLens takes them: the collective's own time is the least any rank spent
// inside it (the last to arrive waits for nobody), the arrival skew the last rank's arrival less the first's.
enum class SkewMethod {
  kClock,      // arrivals read on one clock: every rank of each group on one host (CLOCK_MONOTONIC)
  kDurations,  // a group spans hosts (or arrivals were not recorded): skew = the longest time inside less the
               // shortest, since a synchronous collective's ranks leave it together
};
inline constexpr NameTable<SkewMethod, 2> kSkewMethodNames = {{
    {SkewMethod::kClock, "clock"},
    {SkewMethod::kDurations, "durations"},
}};
struct Arrival {
  SkewMethod method = SkewMethod::kClock;
  // The headline group's series (each group's in turn, pooled, when groups take turns: as time_us).
  Summary transfer_us, skew_us;
};

// --- Aggregate bandwidth over busy time (issue 52) ---
// Concurrent groups' bus bytes over the union of the intervals in which any group was inside an operation (every
// rank's [arrival, arrival + its time] per iteration), PARAM's shared bandwidth: unlike the plain sum
// (aggregate_busbw_gbps, per-group busbw x groups at once) it does not credit groups for time they spent apart.
// Only where every rank ran on one host and recorded its arrivals (one clock).
struct BusyTime {
  double union_s = 0;
  double aggregate_algbw_gbps = 0, aggregate_busbw_gbps = 0;
};

struct RankTime {
  int rank = 0, group = 0, group_rank = 0, pid = 0;
  int process_rank = -1;      // the launcher's rank of its process (RankSamples::process_rank); -1: not recorded
  std::string host, address;  // machine name and transport address ("" in older files)
  Transport transport = Transport::kUnknown;  // what its communicator ran over (RankSamples); kUnknown: not reported
  Summary time_us;
  double cpu_user_s = 0, cpu_sys_s = 0, vol_ctx = 0, invol_ctx = 0;
  double runqueue_wait_s = -1;  // RankSamples::runqueue_wait_s
  int64_t migrations = -1;      // RankSamples::migrations
  std::string affinity;
  double setup_s = 0, wall_s = 0;
  int64_t checked_iters = 0;           // timed iterations this rank checked (0 in files written before it was recorded)
  std::optional<RankTraffic> traffic;  // measured and modelled bytes (rank_traffic.h); absent: not measured
};

// The first `cap` per-iteration times of every rank. A sweep writes them to a sidecar file beside the result
// (`file`, one line per point): they are most of the bytes and no reader of the result needs them.
struct SampleSet {
  int64_t cap = 0;
  std::vector<std::vector<double>> per_rank;  // empty while they stay in `file`
  std::string file;                           // the sidecar's name, relative to the result file; "" when inline
};

// --- communicator memory (issue 52) ---
// What the point's communicators hold in memory: each process's resident growth while its ranks connected
// (RankSamples::comm_rss_bytes; a process with several ranks counted once, by its largest figure, since they
// connect at once and each sees all of it), and the device memory they took on GPU backends. Recorded where the
// communicator was made: a launch's later points reuse it and repeat its figures, as they do setup_s.
struct CommMemory {
  int64_t rss_bytes = 0;      // all processes together
  int processes = 0;          // how many processes that is
  int64_t device_bytes = -1;  // all ranks together (RankSamples::comm_device_bytes); -1: none measured
  int groups = 1;             // the point's group count, for the per-group figures
  double RssBytesPerGroup() const { return groups > 0 ? static_cast<double>(rss_bytes) / groups : 0; }
  double DeviceBytesPerGroup() const {
    return groups > 0 && device_bytes >= 0 ? static_cast<double>(device_bytes) / groups : -1;
  }
};
nlohmann::json CommMemoryToJson(const CommMemory& m);
StatusOr<CommMemory> ReadCommMemory(const nlohmann::json& j, const std::string& path);
// --- end communicator memory ---

struct PointResult {
  // The planner's id, stable across runs: it names the algorithm asked for ("auto"), not the one that ran.
  std::string id;
  Point point;  // the axes; point.algo is the algorithm that ran
  int64_t iters = 0, warmup = 0;
  bool correct = true;
  std::vector<std::string> errors;
  // Timed iterations checked against the pattern: first, last and a random sample; the fewest of any rank (0 in
  // files written before it was recorded).
  int64_t checked_iters = 0;
  // The headline per-iteration time (docs/result-format.md): the own times of the rank whose loop took longest,
  // so time_us.mean is what a loop of such operations costs per op.
  Summary time_us;
  Summary time_us_rank_mean;  // per iteration, the mean across ranks (what nccl-tests prints)
  std::optional<Summary> device_time_us;
  // The rank time_us summarises and its group; -1 when it pools each group's slowest rank (groups taking turns).
  // Absent from files written before the headline was one rank's own series.
  std::optional<int> headline_group, headline_rank;
  // That group's timed loop, wall / iterations (the mean of the groups' when pooled): time_us.mean plus what the
  // harness does between operations.
  std::optional<double> loop_us_per_op;
  // With --sync world-barrier only: the per-iteration max across all ranks, meaningful there because the barrier
  // aligns every group's iteration k in time.
  std::optional<Summary> time_us_world_max;
  double algbw_gbps = 0, busbw_gbps = 0;  // per group, from time_us.mean
  // The plain sum: per-group bandwidth x the groups that run at once (busy_time below: over their busy time).
  double aggregate_algbw_gbps = 0, aggregate_busbw_gbps = 0;
  double wall_s = 0;
  CpuUsage cpu;
  Skew skew;
  // --- Transfer, arrival and busy time (issue 52): absent in files written before they were recorded ---
  std::optional<Arrival> arrival;
  std::optional<BusyTime> busy_time;
  std::vector<GroupTime> per_group;
  std::vector<RankTime> per_rank;
  SampleSet samples_us;               // absent from a file (the HTML report's embedded copy) reads as none kept
  std::optional<HostLoad> host_load;  // absent when the sweep did not monitor the host (older files)
  // Where the point's time went (lib/result/phases.h): its span on the headline rank, phase by phase, and the
  // driver's aggregation. The last repeat's, like the other fields. Absent in older files.
  std::optional<PhaseSeconds> phases;
  std::optional<CommMemory> comm_memory;  // absent where no rank recorded it (older files, SPMD launchers' lines)
  // One entry per independent repeat (a fresh launch, sweep --repeats), in the order they ran: the headline's p50
  // and mean (time_us) of each. The record's other fields are the last repeat's. Empty in files written before
  // repeats existed (schema_version < 3): read them as the one repeat time_us describes (RepeatMedians).
  std::vector<double> repeat_p50_us, repeat_mean_us;
};

// Each repeat's median: repeat_p50_us, or {time_us.p50} for a point recorded without repeats.
std::vector<double> RepeatMedians(const PointResult& p);

// One point measured in several repeats, in the order they ran, as one record: the last repeat's, with every
// repeat's p50 and mean, correct only when every repeat was (the errors of the others named "repeat K: ...").
// A repeat that carries repeats itself contributes all of them.
PointResult CombineRepeats(std::vector<PointResult> repeats);

nlohmann::json SummaryToJson(const Summary& s);
nlohmann::json PointResultToJson(const PointResult& p);
// The sidecar line of a point's samples, and back.
std::string SamplesLine(const PointResult& p);
Status ReadSamplesLine(const std::string& line, const std::string& path, std::string* id, SampleSet* samples);
StatusOr<PointResult> ReadPointResult(const nlohmann::json& j, const std::string& path = "point");

// The point's axes (Point) in JSON, and back. ReadPoint checks names, ranges and world = groups x group_size.
nlohmann::json PointAxesToJson(const Point& p);
StatusOr<Point> ReadPoint(const nlohmann::json& j, const std::string& path = "point");

// Per-iteration times are written to the nanosecond, the steady clock's resolution: more digits are noise.
double RoundToNanosecond(double us);

}  // namespace commbench::result
