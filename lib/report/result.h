// Assembles the result file (docs/result-format.md): spec, environment, points, skips, status, and the diagnosis
// (fits, findings, ruled_out, verdict from lib/diagnose).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/sweep/planner.h"

namespace commbench {

inline constexpr int kSchemaVersion = 1;

struct ResultInputs {
  SweepSpec spec;
  std::string command;
  std::string started_at;  // ISO 8601, UTC
  double duration_s = 0;
  nlohmann::json environment;
  std::vector<nlohmann::json> points;  // AggregatePoint output
  std::vector<Skip> skipped;
  std::string failure;  // empty: complete
};

nlohmann::json BuildResult(const ResultInputs& inputs);

std::string Iso8601Now();

}  // namespace commbench
