// Aggregation: the ranks' result lines of one point -> the point's record in the result file
// (docs/result-format.md): summaries across ranks, bandwidth, CPU evidence, skew, per-group and per-rank data.
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "lib/sweep/planner.h"

namespace commbench {

struct AggregateOptions {
  int cores_available = 1;  // for the CPU saturation ratio
  int64_t sample_cap = 2000;
};

nlohmann::json AggregatePoint(const Point& point, const std::vector<nlohmann::json>& ranks,
                              const AggregateOptions& options);

}  // namespace commbench
