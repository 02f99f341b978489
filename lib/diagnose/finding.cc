#include "lib/diagnose/finding.h"

#include <cmath>
#include <nlohmann/json.hpp>

namespace commbench {
namespace diagnose {

const char* FindingStatusName(FindingStatus s) {
  switch (s) {
    case FindingStatus::kConfirmed:
      return "confirmed";
    case FindingStatus::kSuspected:
      return "suspected";
    case FindingStatus::kRuledOut:
      return "ruled out";
  }
  return "suspected";
}

void to_json(nlohmann::json& j, const Finding& f) {
  nlohmann::json ev = nlohmann::json::array();
  for (const Evidence& e : f.evidence) {
    // Non-finite numbers are not JSON: write null rather than an invalid file.
    nlohmann::json v = std::isfinite(e.value) ? nlohmann::json(e.value) : nlohmann::json();
    ev.push_back({{"label", e.label}, {"value", v}, {"unit", e.unit}});
  }
  j = {{"rule", f.rule},
       {"cause", f.cause},
       {"status", FindingStatusName(f.status)},
       {"score", std::round(f.Score() * 1000) / 1000},
       {"summary", f.summary},
       {"evidence", ev},
       {"fix", f.fix},
       {"points", f.points},
       {"ab_points", f.ab_points}};
  if (f.status == FindingStatus::kSuspected) j["confirm_command"] = f.confirm_command;
  if (f.status != FindingStatus::kSuspected) j["growth_cut"] = std::round(f.cut * 1000) / 1000;
}

}  // namespace diagnose
}  // namespace commbench
