// A finding: a cause of growth with its evidence, its status and what to do about it.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace commbench {
namespace diagnose {

struct Evidence {
  std::string label;
  double value = 0;
  std::string unit;
};

enum class FindingStatus {
  kConfirmed,  // an A/B in this result removed or cut the growth
  kSuspected,  // the evidence points to it; no A/B yet (confirm_command says how to get one)
  kRuledOut,   // an A/B in this result tested the cause and the growth stayed
};

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
  int series = -1;  // the series (AnalysisInput::series index) the finding is about; not written to JSON

  double Score() const { return strength + (status == FindingStatus::kConfirmed ? 1.0 : 0.0); }
};

void to_json(nlohmann::json& j, const Finding& f);

}  // namespace diagnose
}  // namespace commbench
