// Assembles the result file (docs/result-format.md): spec, environment, points, skips, growth fits, status.
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

// The key of a growth series: every axis of a point except the group count.
std::string SeriesKey(const nlohmann::json& point);

// Least-squares line of time_us.p50 against groups for every series with two or more group counts.
nlohmann::json LinearFits(const nlohmann::json& points);

std::string Iso8601Now();

}  // namespace commbench
