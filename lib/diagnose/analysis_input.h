// What the rules read: the result file's points as plain structs, grouped into series (every axis fixed except
// the group count) with their scaling fits, plus the helpers every rule needs (A/B partners, growth cuts, the
// confirming command). Built once from the typed point results; pure.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lib/result/diagnosis.h"
#include "lib/result/point_result.h"
#include "lib/result/result_file.h"
#include "lib/stats/scaling.h"

namespace commbench {
namespace diagnose {

struct RankData {
  int rank = -1;
  int group = -1;
  double p50_us = 0;
  double setup_s = -1;  // -1 when not reported
  double vol_ctx = 0, invol_ctx = 0;
  double cpu_s = 0;
};

struct PointData {
  std::string id;
  Point point;
  // Every axis but `groups`, as text ("" for null): the series key is built from these.
  std::map<std::string, std::string> axes;
  int groups = 0, group_size = 0, world = 0;
  int64_t bytes = 0;
  double iters = 0;
  // p50_us holds time_us.mean, the loop's cost per op (the fits' statistic), se_us its standard error.
  double p50_us = 0, p99_us = 0, se_us = 0;
  double median_us = 0;         // time_us.p50: the typical op, for tail ratios
  double world_max_p50_us = 0;  // time_us_world_max.p50 (world-barrier points only; 0 otherwise)
  double wall_s = 0;
  bool has_cpu = false;
  double cpu_s_total = 0, cores_available = 0, saturation = 0, threads_per_core = 0;
  double vol_ctx_per_iter = 0, invol_ctx_per_iter = 0;  // per rank per iteration (mean over ranks)
  double runqueue_wait_us_per_op = -1;  // cpu.runqueue_wait_us_per_iter: the most any rank waited; -1 unknown
  double cpu_quota = 0;                 // cpu.cpu_quota: the ranks' cgroup CPU limit in CPUs; 0 none
  double throttled_share = -1;          // cpu.throttled_share: periods their cgroup ran out of quota; -1 unknown
  bool has_skew = false;
  double start_skew_us = 0;
  int slowest_group = -1, slowest_rank = -1;
  std::vector<std::pair<int, double>> group_p50;  // (group, p50 us)
  std::vector<RankData> ranks;
  double busbw_gbps = 0, aggregate_busbw_gbps = 0;
  std::optional<result::HostLoad> host_load;  // CPU taken by processes outside the run (rules/outside_load.cc)
  bool requested = true;  // in the sweep the user asked for; false: a point --explain added for an A/B

  // --- Transfer and arrival (issue 52): the point's `arrival`, per_group's and busy_time's figures ---
  bool has_arrival = false;  // false in files written before they were recorded
  result::SkewMethod skew_method = result::SkewMethod::kClock;
  double transfer_mean_us = 0, transfer_p50_us = 0, transfer_p99_us = 0;  // the collective's own time
  double skew_mean_us = 0, skew_p50_us = 0, skew_p99_us = 0;              // the arrival skew
  struct GroupArrival {
    int group = 0;
    double skew_p50_us = 0;
    int last_rank = -1;  // the rank that arrived last most often; -1 not known
    double last_share = 0;
  };
  std::vector<GroupArrival> group_arrivals;  // groups that recorded them
  double busy_aggregate_busbw_gbps = -1;     // busy_time.aggregate_busbw_gbps; -1 not recorded
  // --- end of issue 52's block ---

  std::string Axis(const std::string& name) const;
  double MaxSetupS() const;  // -1 when no rank reported setup_s
  // Voluntary context switches per rank per iteration: how often a rank blocked and had to be woken.
  double VolCtxPerRankIter() const;
};

struct SeriesData {
  std::string key;  // "axis=value;..." over PointData::axes
  std::map<std::string, std::string> axes;
  Point point;  // the same axes, typed, as its first point has them (its `groups` is that point's): rules read these
  std::vector<int> points;  // indices into AnalysisInput::points, ascending groups
  std::vector<double> groups, p50_us, se_us;
  ScalingFit fit;
  result::SlopeKind slope_vs_bytes = result::SlopeKind::kUnknown;
  double bytes_share = 0;
  bool explained = false;  // a confirmed finding accounts for this series' growth: other rules look elsewhere
  // The user asked for it; false: --explain added it as the B side of an A/B. A finding about the user's own
  // loop ranks before one about a loop that exists only as evidence.
  bool requested = true;
};

// Growth of A and of B over the group counts they share, and how much B cut it.
struct AbComparison {
  int a = -1, b = -1;  // series indices
  double g_lo = 0, g_hi = 0;
  double growth_a_us = 0, growth_b_us = 0;  // each side's fitted growth over [g_lo, g_hi]; 0 when within noise
  double cut = 0;                           // 1 - growth_b / growth_a (the more conservative of model and line)
  bool removed = false;                     // A grows there and B cut it by at least kMinCut
  bool a_grows = false;                     // A grows over [g_lo, g_hi] (else the pair tests nothing)
};

// The rule an A/B pair confirms, when more than one rule claimed it (lib/diagnose/ab.h: CreditSharedAbs).
struct AbCredit {
  std::string rule, cause;
};

inline constexpr double kMinCut = 0.3;

// An A/B measured interleaved (--explain's second phase): the rounds of series `a` against series `b`, as
// result::ExplainAb records them, with A and B as the series indices name them.
struct InterleavedAb {
  int a = -1, b = -1;
  std::vector<result::AbRound> rounds;
};

// Point-to-point noise measured in the run itself (result::NoiseFloor), from pairs of points that measured one
// configuration twice: the same axes and group count, where at G=1 the concurrency axis changes nothing (one
// group runs alone). On the 2-core VM such pairs at 1 MiB differed by 4 % (rms, one point) and up to 28 %.
result::NoiseFloor MeasureNoiseFloor(const std::vector<PointData>& points, double default_relative);

struct AnalysisInput {
  std::vector<PointData> points;
  std::vector<std::string> excluded;  // points with a wrong result: their times say nothing about the cause
  std::vector<SeriesData> series;
  std::string command;   // the result's command line ("" when absent)
  std::string affinity;  // environment.affinity, e.g. "0-1"
  double cores_online = 0;
  double memcpy_gbps = 0, tcp_loopback_gbps = 0;  // environment.peaks, 0 when not measured
  ScalingOptions options;  // relative_noise_floor: the default; a series' fits use OptionsFor(series)
  result::NoiseFloor noise_floor;
  // Pairs (A series, B series) that confirm one rule's cause only: set by the diagnosis, read by EvaluateAbs.
  std::map<std::pair<int, int>, AbCredit> ab_credit;
  // The A/Bs measured as alternating launches; a pair of series without one was measured at different moments.
  std::vector<InterleavedAb> interleaved;

  const PointData& Point(const SeriesData& s, size_t i) const { return points[static_cast<size_t>(s.points[i])]; }
  const PointData& Last(const SeriesData& s) const { return Point(s, s.points.size() - 1); }
  const PointData& First(const SeriesData& s) const { return Point(s, 0); }
  // The fits' options for series `s`: each point's noise at least noise_floor.For(its bytes).
  ScalingOptions OptionsFor(const SeriesData& s) const;

  // Series equal to `a` on every axis except those in `varying`, and different from `a` on `primary`.
  std::vector<int> Partners(int a, const std::string& primary, const std::vector<std::string>& varying = {}) const;
  // Series differing from `a` only in bytes (including `a` itself), ascending bytes.
  std::vector<int> SizeSiblings(int a) const;
  AbComparison Compare(int a, int b) const;
  // The best cut among the partners of `a` accepted by `is_b` (a predicate over the partner series).
  template <typename Pred>
  std::optional<AbComparison> BestAb(int a, const std::vector<int>& partners, Pred is_b) const {
    std::optional<AbComparison> best;
    for (int b : partners) {
      if (!is_b(series[static_cast<size_t>(b)])) continue;
      AbComparison c = Compare(a, b);
      if (c.g_hi <= c.g_lo) continue;
      if (!best || c.cut > best->cut) best = c;
    }
    return best;
  }

  // The interleaved rounds of series a against b, oriented so that A is `a` (the rounds' sides swapped where
  // they were recorded the other way round); nullopt when none was measured.
  std::optional<InterleavedAb> InterleavedFor(int a, int b) const;

  // The command that would confirm: the result's command with each axis flag set to (its values U `values`).
  std::string ConfirmCommand(const std::vector<std::pair<std::string, std::vector<std::string>>>& axes) const;
};

// Number of CPUs in a list like "0", "0-1", "0,2-3"; 0 for "" (unrestricted) or text that is not a list.
int CountCpus(const std::string& list);

// The axes that form the series key (PointData::axes), in output order.
const std::vector<std::string>& SeriesAxes();

// `requested_points`: points[0, requested_points) are the sweep the user asked for, the rest --explain's A/B
// points (result::ExplainRecord::first_phase_points); -1: all of them were asked for.
AnalysisInput BuildAnalysisInput(const std::vector<result::PointResult>& points, const std::string& command,
                                 const result::Environment& environment, const ScalingOptions& options = {},
                                 int64_t requested_points = -1);

// Adds the interleaved A/Bs of `explain` (its rounds) to `in`, naming their sides by the series that hold their
// points. Rounds whose points are in no series (excluded, or not in the file) are left out.
void AttachInterleaved(const result::ExplainRecord& explain, AnalysisInput* in);

}  // namespace diagnose
}  // namespace commbench
