// A finding: a cause of growth with its evidence, its status and what to do about it (the result file's
// findings[] and ruled_out[]).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "lib/core/name_table.h"
#include "lib/core/status.h"

namespace commbench::result {

struct Evidence {
  std::string label;
  double value = 0;  // NaN when the figure could not be computed (written as null)
  std::string unit;
};

enum class FindingStatus {
  kConfirmed,  // an A/B in this result removed or cut the growth
  kSuspected,  // the evidence points to it; no A/B yet (confirm_command says how to get one)
  kRuledOut,   // an A/B in this result tested the cause and the growth stayed
};

inline constexpr NameTable<FindingStatus, 3> kFindingStatusNames = {{
    {FindingStatus::kConfirmed, "confirmed"},
    {FindingStatus::kSuspected, "suspected"},
    {FindingStatus::kRuledOut, "ruled out"},
}};

const char* FindingStatusName(FindingStatus s);

struct Finding {
  std::string rule;
  std::string cause;
  FindingStatus status = FindingStatus::kSuspected;
  double strength = 0;  // how well the signature matches, in [0, 1]; score adds 1 when confirmed
  std::string summary;
  std::vector<Evidence> evidence;
  std::string fix;
  std::string confirm_command;  // for suspected
  std::vector<std::string> points;
  std::vector<std::string> ab_points;
  double cut = 0;   // confirmed / ruled out: fraction of the growth the B side removed
  int series = -1;  // the diagnosis's series index the finding is about; not written to JSON

  double Score() const { return strength + (status == FindingStatus::kConfirmed ? 1.0 : 0.0); }
};

nlohmann::json FindingToJson(const Finding& f);
StatusOr<Finding> ReadFinding(const nlohmann::json& j, const std::string& path = "finding");

}  // namespace commbench::result
