// Reads the sweep spec a result file records (lib/sweep/point_json.h's SpecToJson writes it) back into a
// SweepSpec, so that a later run can repeat the same sweep (the CI gate) or a reader can see what was asked.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "lib/core/status.h"
#include "lib/model/spec.h"

namespace commbench::result {

// The schema's required keys must be there; keys that older files lack take SweepSpec's defaults.
StatusOr<SweepSpec> ReadSpec(const nlohmann::json& j, const std::string& path = "spec");

// One --explain factor, [[axis, value], ...] (ExplainFactorToJson); the error says what is wrong, the caller
// where.
StatusOr<SweepSpec::ExplainFactor> ReadExplainFactor(const nlohmann::json& j);

}  // namespace commbench::result
