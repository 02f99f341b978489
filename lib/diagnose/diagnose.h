// The diagnosis: from a sweep's point results to fits, findings, the causes ruled out and a verdict, as
// docs/result-format.md describes them. Pure: the same points give the same answer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/diagnose/analysis_input.h"
#include "lib/diagnose/rule.h"
#include "lib/result/diagnosis.h"
#include "lib/result/point_result.h"
#include "lib/result/result_file.h"

namespace commbench {
namespace diagnose {

// Runs every rule over the series of `input` (BuildAnalysisInput).
result::Diagnosis Run(const AnalysisInput& input);
// The same over the given rules (in this order) instead of the registry's.
result::Diagnosis Run(const AnalysisInput& input, const std::vector<const Rule*>& rules);

// BuildAnalysisInput + Run: `command` is the sweep's command line (confirming commands are built from it);
// `requested_points` as for BuildAnalysisInput.
result::Diagnosis Diagnose(const std::vector<result::PointResult>& points, const std::string& command,
                           const result::Environment& environment, int64_t requested_points = -1);
// The same for a result file: its --explain record says which points the user asked for.
result::Diagnosis Diagnose(const result::ResultFile& file);

}  // namespace diagnose
}  // namespace commbench
