// The diagnosis: from a result (points) to fits[], findings[] and a verdict, as docs/result-format.md
// describes them. Pure: the same result gives the same answer.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "lib/diagnose/analysis_input.h"
#include "lib/diagnose/finding.h"

namespace commbench {
namespace diagnose {

struct Diagnosis {
  std::vector<Finding> findings;   // confirmed and suspected, highest score first
  std::vector<Finding> ruled_out;  // causes whose A/B ran in this result and did not cut the growth
  std::string verdict;             // "growth" | "no growth" | "insufficient data"
};

Diagnosis Run(const AnalysisInput& input);

// One fits[] entry per series: every axis but groups, the p50 per G, the line, the chosen model and more.
nlohmann::json FitsJson(const AnalysisInput& input);

// {"fits": [...], "findings": [...], "ruled_out": [...], "verdict": "..."}: merge into the result file.
nlohmann::json Diagnose(const nlohmann::json& result);

}  // namespace diagnose
}  // namespace commbench
