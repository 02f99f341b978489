#include "lib/result/finding.h"

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "lib/result/json_reader.h"

namespace commbench::result {

using nlohmann::json;

namespace {

// Huge values need no rounding; scaling them would overflow to infinity, which JSON cannot hold.
double Round3(double v) { return std::isfinite(v * 1000) ? std::round(v * 1000) / 1000 : v; }

}  // namespace

const char* FindingStatusName(FindingStatus s) { return NameOf(kFindingStatusNames, s).data(); }

json FindingToJson(const Finding& f) {
  json ev = json::array();
  for (const Evidence& e : f.evidence) {
    // Non-finite numbers are not JSON: write null rather than an invalid file.
    json v = std::isfinite(e.value) ? json(e.value) : json();
    ev.push_back({{"label", e.label}, {"value", v}, {"unit", e.unit}});
  }
  json j = {{"rule", f.rule},
            {"cause", f.cause},
            {"status", FindingStatusName(f.status)},
            {"score", Round3(f.Score())},
            {"summary", f.summary},
            {"evidence", ev},
            {"fix", f.fix},
            {"points", f.points},
            {"ab_points", f.ab_points}};
  if (f.status == FindingStatus::kSuspected) j["confirm_command"] = f.confirm_command;
  if (f.status != FindingStatus::kSuspected) j["growth_cut"] = Round3(f.cut);
  return j;
}

StatusOr<Finding> ReadFinding(const json& j, const std::string& path) {
  SchemaErrors errors;
  ObjectReader in(j, path, &errors);
  Finding f;
  f.rule = in.String("rule");
  f.cause = in.String("cause");
  f.status = in.Enum("status", kFindingStatusNames);
  // The schema requires the words and the evidence; the figures and point lists are optional.
  const double score = in.NumberOr("score", f.status == FindingStatus::kConfirmed ? 1.0 : 0.0);
  f.strength = score - (f.status == FindingStatus::kConfirmed ? 1.0 : 0.0);
  f.summary = in.String("summary");
  const auto evidence = in.Array("evidence");
  for (size_t i = 0; i < evidence.size(); ++i) {
    ObjectReader e(*evidence[i], ObjectReader::PathOf(in.PathOf("evidence"), i), &errors);
    const auto value = e.NullableNumber("value");
    f.evidence.push_back({e.String("label"), value ? *value : std::numeric_limits<double>::quiet_NaN(),
                          e.String("unit")});
  }
  f.fix = in.String("fix");
  if (in.Has("points")) f.points = in.Strings("points");
  if (in.Has("ab_points")) f.ab_points = in.Strings("ab_points");
  if (in.Has("confirm_command")) f.confirm_command = in.String("confirm_command");
  f.cut = in.NumberOr("growth_cut", 0);
  RETURN_IF_ERROR(errors.status());
  return f;
}

}  // namespace commbench::result
