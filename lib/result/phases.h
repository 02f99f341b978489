// Where the time goes (docs/result-format.md, "Where the time goes"): the harness phases of a point on one rank,
// and of a whole run, in seconds. A point's phases add up to its span on the rank that measured it (the timed loop
// one of them); the run's add up to its wall time, so that the share of the wall spent in timed loops is read
// off one file.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "lib/core/name_table.h"
#include "lib/core/status.h"

namespace commbench::result {

enum class Phase {
  kStart,        // run: the environment fingerprint, the host peaks, the file's header
  kSpawn,        // starting a launch's rank processes and their control plane (a point reusing them: 0)
  kConnect,      // the point's communicator (first use in the launch) and buffers
  kWarmup,       // warm-up and the probes that choose the iteration count
  kTimed,        // the clocked operations: the sum of the timed samples
  kBetweenOps,   // between clocked operations: input copies (where the op overwrites its input) and bookkeeping
  kChecks,       // comparing checked outputs, making sampled inputs, the barriers after checks
  kBarriers,     // the barrier that starts the timed loop (and the turns of groups one at a time), the adaptive
                 // loop's agreements
  kStats,        // the adaptive loop's interval between batches
  kWriting,      // a rank writing its results line
  kAggregation,  // the driver's CPU time parsing the ranks' lines and aggregating the point (off the ranks' path)
  kLaunchEnd,    // run: ranks leaving, the launch torn down, the driver finishing what its ranks outran
  kFinish,       // run: the diagnosis and the trailer
  kOther,        // the rest of the span: result assembly, rusage, scheduling
};
inline constexpr size_t kPhaseCount = 14;
inline constexpr NameTable<Phase, kPhaseCount> kPhaseNames = {{
    {Phase::kStart, "start"},
    {Phase::kSpawn, "spawn"},
    {Phase::kConnect, "connect"},
    {Phase::kWarmup, "warmup"},
    {Phase::kTimed, "timed"},
    {Phase::kBetweenOps, "between_ops"},
    {Phase::kChecks, "checks"},
    {Phase::kBarriers, "barriers"},
    {Phase::kStats, "stats"},
    {Phase::kWriting, "writing"},
    {Phase::kAggregation, "aggregation"},
    {Phase::kLaunchEnd, "launch_end"},
    {Phase::kFinish, "finish"},
    {Phase::kOther, "other"},
}};

// Seconds per phase.
struct PhaseSeconds {
  std::array<double, kPhaseCount> s{};
  double& operator[](Phase p) { return s[static_cast<size_t>(p)]; }
  double operator[](Phase p) const { return s[static_cast<size_t>(p)]; }
  double Sum() const;
  void Add(const PhaseSeconds& other);
};

// What a rank records of one point: its phases and where the point lay on its clock (CLOCK_MONOTONIC), from the
// end of the previous point (or the first point's start) to this one's samples being ready. kWriting is the
// previous line's (a line cannot hold its own writing time); kSpawn is left to the driver.
struct RankPhases {
  int64_t begin_ns = 0, end_ns = 0;
  PhaseSeconds seconds;
};

// A run's wall time (trailer "wall"): the phases add up to wall_s; timed_share = timed / wall.
struct WallTime {
  double wall_s = 0;
  PhaseSeconds phases;
  // The driver's own CPU time on the points, on its idle-priority thread: it overlaps the ranks' next point,
  // and only what the ranks outran waits in kLaunchEnd.
  double driver_aggregation_s = 0, driver_writing_s = 0;
  double TimedShare() const { return wall_s > 0 ? phases[Phase::kTimed] / wall_s : 0; }
};

// The phases a point records (points[].phases): kStart, kLaunchEnd and kFinish are the run's only.
bool IsPointPhase(Phase p);

nlohmann::json PointPhasesToJson(const PhaseSeconds& p);
StatusOr<PhaseSeconds> ReadPointPhases(const nlohmann::json& j, const std::string& path);
nlohmann::json RankPhasesToJson(const RankPhases& r);
StatusOr<RankPhases> ReadRankPhases(const nlohmann::json& j, const std::string& path);
nlohmann::json WallTimeToJson(const WallTime& w);
StatusOr<WallTime> ReadWallTime(const nlohmann::json& j, const std::string& path);

}  // namespace commbench::result
