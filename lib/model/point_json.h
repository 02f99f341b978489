// JSON forms of the sweep's vocabulary: points travel to the worker ranks in the plan file and come back in
// the result file; the spec is recorded verbatim in the result (docs/design.md §5).
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "lib/model/point.h"
#include "lib/model/spec.h"

namespace commbench {

nlohmann::json PointToJson(const Point& p);
StatusOr<Point> PointFromJson(const nlohmann::json& j);
nlohmann::json SpecToJson(const SweepSpec& spec);
// One --explain factor: [[axis, value], ...].
nlohmann::json ExplainFactorToJson(const SweepSpec::ExplainFactor& factor);

}  // namespace commbench
