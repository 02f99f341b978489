// The diagnosis as the result file records it: one fit per series, the findings, the causes ruled out and the
// verdict.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "lib/core/name_table.h"
#include "lib/core/status.h"
#include "lib/model/point.h"
#include "lib/result/finding.h"
#include "lib/stats/scaling.h"

namespace commbench::result {

// Whether a series' per-group slope scales with bytes (compared across the sizes of the same configuration).
enum class SlopeKind { kUnknown, kBandwidthBound, kPerOperation };
inline constexpr NameTable<SlopeKind, 3> kSlopeKindNames = {{
    {SlopeKind::kUnknown, "unknown"},
    {SlopeKind::kBandwidthBound, "bandwidth-bound"},
    {SlopeKind::kPerOperation, "per-operation overhead"},
}};

inline constexpr NameTable<GrowthModel, 4> kGrowthModelNames = {{
    {GrowthModel::kFlat, "flat"},
    {GrowthModel::kLinear, "linear"},
    {GrowthModel::kStep, "step"},
    {GrowthModel::kSaturation, "saturation"},
}};

// One series (every axis fixed but the group count) and how its time grows with the groups.
// --- Transfer and arrival (issue 52) ---
// What a growing series' growth is made of, from its first and last points' means (the fits' statistic): the
// collective's own time (transfer) or the ranks' arrival skew (docs/result-format.md, "Transfer and arrival").
enum class GrowthReading { kTransfer, kLateArrival, kMixed };
inline constexpr NameTable<GrowthReading, 3> kGrowthReadingNames = {{
    {GrowthReading::kTransfer, "transfer"},
    {GrowthReading::kLateArrival, "late arrival"},
    {GrowthReading::kMixed, "mixed"},
}};
struct GrowthSplit {
  double time_growth_us = 0;  // the loop cost per op (time_us.mean), last point less first
  double transfer_first_us = 0, transfer_last_us = 0, skew_first_us = 0, skew_last_us = 0;
  double transfer_growth_us = 0, skew_growth_us = 0;
  GrowthReading reading = GrowthReading::kMixed;
};

struct Fit {
  Point series;  // the series' axes; groups, world and count are its first point's
  std::vector<int> groups;
  std::vector<double> p50_us;
  double slope_us_per_group = 0, intercept_us = 0, r2 = 0;
  GrowthModel model = GrowthModel::kFlat;
  double change_point = 0;  // step and saturation only
  double level_before_us = 0, level_after_us = 0;
  double growth_us = 0, growth_fraction = 0;
  bool grows = false;
  double noise_us = 0;
  SlopeKind slope_vs_bytes = SlopeKind::kUnknown;
  double bytes_share = 0;
  std::vector<std::string> points;   // ids, ascending groups
  std::optional<GrowthSplit> split;  // growing series whose points recorded their arrivals (issue 52)
};

// kNotALine: nothing grows steadily, but some series' points alternate, lie far off or scatter beyond their
// noise (the caveats say which and how), so "no growth" would describe none of them.
enum class Verdict { kGrowth, kNoGrowth, kInsufficientData, kNotALine };
inline constexpr NameTable<Verdict, 4> kVerdictNames = {{
    {Verdict::kGrowth, "growth"},
    {Verdict::kNoGrowth, "no growth"},
    {Verdict::kInsufficientData, "insufficient data"},
    {Verdict::kNotALine, "not a line"},
}};

// What pairs of points that measured one configuration twice in a run differed by: one point's rms relative
// difference, sqrt(mean(d^2) / 2) over the pairs' relative differences d.
struct ReplicateNoise {
  int pairs = 0;
  double relative_sd = 0;
};

// The noise every point was assumed to have, at least, as a fraction of its value. Resampling a point's
// iterations does not see drift between points; points measured twice in the run do.
struct NoiseFloor {
  double default_relative = 0;  // without replicates
  ReplicateNoise all;           // every pair of the run
  std::map<int64_t, ReplicateNoise> by_bytes;
  // A point of `bytes`: its own size's replicates where it has any (noise differs by size: 4 % at 1 MiB, 1.8 %
  // at 64 KiB on the 2-core VM), else every pair's, and never below the default.
  double For(int64_t bytes) const;
};

struct Diagnosis {
  std::vector<Fit> fits;
  std::optional<NoiseFloor> noise_floor;  // absent in files written before it was recorded
  std::vector<Finding> findings;          // confirmed and suspected, highest score first
  std::vector<Finding> ruled_out;         // causes whose A/B ran in this result and did not cut the growth
  Verdict verdict = Verdict::kInsufficientData;
  std::vector<std::string> excluded;  // ids of points left out because their result was wrong
  // With verdict "no growth" only: what it cannot rule out, a sentence each, with the measurement that raises it
  // and what to do (lib/diagnose/caveats.h): outside load on some points, a CPU quota the ranks ran out of.
  std::vector<std::string> caveats;
};

nlohmann::json FitToJson(const Fit& f);
nlohmann::json NoiseFloorToJson(const NoiseFloor& n);
StatusOr<NoiseFloor> ReadNoiseFloor(const nlohmann::json& j, const std::string& path = "noise_floor");
StatusOr<Fit> ReadFit(const nlohmann::json& j, const std::string& path = "fit");

}  // namespace commbench::result
