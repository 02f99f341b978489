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

namespace {

json IntervalToJson(const CutInterval& c) { return json::array({Round3(c.lo), Round3(c.hi)}); }

json AbToJson(const AbRecord& r) {
  json j = {{"factor", r.factor},
            {"partner", r.partner},
            {"points", r.points},
            {"g_lo", r.g_lo},
            {"g_hi", r.g_hi},
            {"growth_a_us", r.growth_a_us},
            {"growth_b_us", r.growth_b_us},
            {"cut", Round3(r.cut)},
            {"cut_ci95", IntervalToJson(r.cut_ci95)},
            {"outcome", NameOf(kAbOutcomeNames, r.outcome)}};
  if (!r.a_side.empty()) j["a_side"] = r.a_side;
  if (!r.note.empty()) j["note"] = r.note;
  if (!r.supports_cause.empty()) j["supports_cause"] = r.supports_cause;
  j["pairs"] = r.pairs;
  if (!r.pair_cuts.empty()) {
    json cuts = json::array();
    for (double c : r.pair_cuts) cuts.push_back(Round3(c));
    j["pair_cuts"] = cuts;
  }
  return j;
}

// [lo, hi] with lo <= hi.
CutInterval ReadInterval(ObjectReader& in, const char* key) {
  const std::vector<double> v = in.Numbers(key);
  if (v.size() != 2 || v[0] > v[1]) {
    in.errors()->Add(in.PathOf(key), "expected [low, high] with low <= high");
    return {};
  }
  return {v[0], v[1]};
}

AbRecord ReadAb(const json& j, const std::string& path, SchemaErrors* errors) {
  ObjectReader in(j, path, errors);
  AbRecord r;
  r.factor = in.String("factor");
  r.partner = in.String("partner");
  r.points = in.Strings("points");
  r.g_lo = in.Number("g_lo");
  r.g_hi = in.Number("g_hi");
  r.growth_a_us = in.Number("growth_a_us");
  r.growth_b_us = in.Number("growth_b_us");
  r.cut = in.Number("cut");
  r.cut_ci95 = ReadInterval(in, "cut_ci95");
  r.outcome = in.Enum("outcome", kAbOutcomeNames);
  if (in.Has("a_side")) r.a_side = in.String("a_side");
  if (in.Has("note")) r.note = in.String("note");
  if (in.Has("supports_cause")) r.supports_cause = in.String("supports_cause");
  if (in.Has("pairs")) r.pairs = in.SmallInt("pairs", 0);
  if (in.Has("pair_cuts")) r.pair_cuts = in.Numbers("pair_cuts");
  return r;
}

}  // namespace

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
  if (f.status != FindingStatus::kSuspected || !f.ab.empty()) j["growth_cut"] = Round3(f.cut);
  if (f.cut_ci95) j["cut_ci95"] = IntervalToJson(*f.cut_ci95);
  if (!f.ab.empty()) {
    json ab = json::array();
    for (const AbRecord& r : f.ab) ab.push_back(AbToJson(r));
    j["ab"] = ab;
  }
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
    f.evidence.push_back(
        {e.String("label"), value ? *value : std::numeric_limits<double>::quiet_NaN(), e.String("unit")});
  }
  f.fix = in.String("fix");
  if (in.Has("points")) f.points = in.Strings("points");
  if (in.Has("ab_points")) f.ab_points = in.Strings("ab_points");
  if (in.Has("confirm_command")) f.confirm_command = in.String("confirm_command");
  f.cut = in.NumberOr("growth_cut", 0);
  // Files written before the A/B interval existed have neither key.
  if (in.Has("cut_ci95")) f.cut_ci95 = ReadInterval(in, "cut_ci95");
  if (in.Has("ab")) {
    const auto ab = in.Array("ab");
    for (size_t i = 0; i < ab.size(); ++i)
      f.ab.push_back(ReadAb(*ab[i], ObjectReader::PathOf(in.PathOf("ab"), i), &errors));
  }
  RETURN_IF_ERROR(errors.status());
  return f;
}

}  // namespace commbench::result
