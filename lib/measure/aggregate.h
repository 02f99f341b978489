// Aggregation: the ranks' samples of one point -> the point's result (docs/result-format.md): summaries across
// ranks, bandwidth, CPU evidence, skew, per-group and per-rank figures.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/model/point.h"
#include "lib/result/point_result.h"
#include "lib/result/rank_samples.h"

namespace commbench {

struct AggregateOptions {
  int cores_available = 1;  // for the CPU saturation ratio
  int64_t sample_cap = 2000;
  // CLOCK_MONOTONIC when the point's launch began spawning its ranks, for the launch's first point (its spawn
  // phase); 0 otherwise (reused processes, or ranks a launcher started elsewhere).
  int64_t launch_start_ns = 0;
};

// `ranks` holds every rank of the point's world, ordered by rank.
result::PointResult AggregatePoint(const Point& point, const std::vector<result::RankSamples>& ranks,
                                   const AggregateOptions& options);

}  // namespace commbench
