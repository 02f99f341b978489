// A finding: a cause of growth with its evidence, its status and what to do about it (the result file's
// findings[] and ruled_out[]).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

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

// What one A/B pair says about a cause: the cut (share of the growth the B side removed) and its 95% interval.
enum class AbOutcome {
  kSupports,      // cut >= 0.5 and the interval's lower end >= 0.3
  kInconclusive,  // anything between: too small or too uncertain to confirm or rule out
  kRulesOut,      // the interval's upper end < 0.3: the factor removes little of the growth
};

inline constexpr NameTable<AbOutcome, 3> kAbOutcomeNames = {{
    {AbOutcome::kSupports, "supports"},
    {AbOutcome::kInconclusive, "inconclusive"},
    {AbOutcome::kRulesOut, "rules out"},
}};

struct CutInterval {
  double lo = 0, hi = 0;
};

// One A/B pair measured for a finding: A is the finding's series, B the same points with the factor changed.
struct AbRecord {
  std::string factor;   // the axis the pair varies, e.g. "cpus"
  std::string partner;  // the B side as the user's flag, e.g. "--cpus 0-1"
  std::string a_side;   // the A side as the user's flag when it is not the finding's own series ("" when it is)
  std::vector<std::string> points;  // B's point ids
  double g_lo = 0, g_hi = 0;        // the group counts both sides share
  double growth_a_us = 0, growth_b_us = 0;
  double cut = 0;
  CutInterval cut_ci95;
  AbOutcome outcome = AbOutcome::kInconclusive;
  std::string note;            // why it is inconclusive, when that is not the figures alone
  std::string supports_cause;  // set when this A/B confirms another cause (one A/B confirms one cause)
  // The interleaved rounds (A B, B A, ...) the cut and its interval come from; 0: the sides ran at different
  // moments (the sweep's order), which can neither confirm nor rule out. Each round's own cut, as they ran.
  int pairs = 0;
  std::vector<double> pair_cuts;
  int a_series = -1, b_series = -1;  // the diagnosis's series indices; not written to JSON
};

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
  double cut = 0;                       // the decisive A/B's share of the growth the B side removed (0 without an A/B)
  std::optional<CutInterval> cut_ci95;  // its 95% interval; absent without an A/B (and in older files)
  std::vector<AbRecord> ab;             // every A/B pair measured for this finding, decisive or not
  int series = -1;                      // the diagnosis's series index the finding is about; not written to JSON
  // The same rule's findings on other series that their A/Bs ruled out, while this one was not: the diagnosis
  // lists them in ruled_out[] beside this finding. Not written to JSON.
  std::vector<Finding> ruled_out_elsewhere;

  double Score() const { return strength + (status == FindingStatus::kConfirmed ? 1.0 : 0.0); }
};

nlohmann::json FindingToJson(const Finding& f);
StatusOr<Finding> ReadFinding(const nlohmann::json& j, const std::string& path = "finding");

}  // namespace commbench::result
