#include "lib/diagnose/diagnose.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "lib/diagnose/rule.h"

namespace commbench {
namespace diagnose {
namespace {

double Round(double v, double unit) { return std::isfinite(v) ? std::round(v / unit) * unit : 0; }

nlohmann::json AxisValue(const std::string& axis, const std::string& v) {
  static const char* kNumeric[] = {"group_size", "bytes", "ranks_per_process", "h2d_bytes"};
  for (const char* n : kNumeric) {
    if (axis != n || v.empty()) continue;
    char* end = nullptr;
    long long x = std::strtoll(v.c_str(), &end, 10);
    if (*end == '\0') return x;
  }
  if (axis == "graph" || axis == "in_place") return v == "true";
  if (v.empty() && (axis == "stream" || axis == "h2d")) return nullptr;
  return v;
}

}  // namespace

nlohmann::json FitsJson(const AnalysisInput& in) {
  nlohmann::json fits = nlohmann::json::array();
  for (const SeriesData& s : in.series) {
    nlohmann::json f;
    for (const std::string& axis : SeriesAxes()) {
      auto it = s.axes.find(axis);
      if (it != s.axes.end()) f[axis] = AxisValue(axis, it->second);
    }
    f["groups"] = s.groups;
    f["p50_us"] = s.p50_us;
    f["slope_us_per_group"] = Round(s.fit.line.slope, 1e-3);
    f["intercept_us"] = Round(s.fit.line.intercept, 1e-3);
    f["r2"] = Round(s.fit.line.r2, 1e-4);
    f["model"] = GrowthModelName(s.fit.model);
    if (s.fit.model == GrowthModel::kStep || s.fit.model == GrowthModel::kSaturation) {
      f["change_point"] = s.fit.change_point;
    }
    // Added fields (beyond the format's minimum): what the rules read.
    f["level_before_us"] = Round(s.fit.level_before, 1e-3);
    f["level_after_us"] = Round(s.fit.level_after, 1e-3);
    f["growth_us"] = Round(s.fit.growth, 1e-3);
    f["growth_fraction"] = Round(s.fit.growth_fraction, 1e-4);
    f["grows"] = s.fit.grows;
    f["noise_us"] = Round(s.fit.noise, 1e-3);
    f["slope_vs_bytes"] = s.slope_vs_bytes;
    f["bytes_share"] = Round(s.bytes_share, 1e-4);
    nlohmann::json ids = nlohmann::json::array();
    for (int p : s.points) ids.push_back(in.points[static_cast<size_t>(p)].id);
    f["points"] = ids;
    fits.push_back(f);
  }
  return fits;
}

Diagnosis Run(const AnalysisInput& in) {
  Diagnosis d;
  bool enough =
      std::any_of(in.series.begin(), in.series.end(), [](const SeriesData& s) { return s.groups.size() >= 2; });
  if (!enough) {
    d.verdict = "insufficient data";
    return d;
  }
  // Pass 1: every rule on every series. A confirmed finding explains its series; pass 2 lets the other rules
  // look for their causes in what is left, so that one planted cause is not echoed by every rule.
  std::vector<std::optional<Finding>> first;
  for (const auto& rule : Rules()) first.push_back(rule->Evaluate(in));
  AnalysisInput rest = in;
  bool any_confirmed = false;
  for (const auto& f : first) {
    if (f && f->status == FindingStatus::kConfirmed && f->series >= 0) {
      rest.series[static_cast<size_t>(f->series)].explained = true;
      any_confirmed = true;
    }
  }
  for (size_t r = 0; r < Rules().size(); ++r) {
    std::optional<Finding> f = first[r];
    if (any_confirmed && !(f && f->status == FindingStatus::kConfirmed)) f = Rules()[r]->Evaluate(rest);
    if (!f) continue;
    (f->status == FindingStatus::kRuledOut ? d.ruled_out : d.findings).push_back(*f);
  }
  std::stable_sort(d.findings.begin(), d.findings.end(),
                   [](const Finding& a, const Finding& b) { return a.Score() > b.Score(); });
  // Set-up growing with groups is a cost growing with groups too, even when the timed loop is flat.
  bool grows = std::any_of(in.series.begin(), in.series.end(), [](const SeriesData& s) { return s.fit.grows; }) ||
               !d.findings.empty();
  d.verdict = grows ? "growth" : "no growth";
  if (!grows) d.ruled_out.clear();
  return d;
}

nlohmann::json Diagnose(const nlohmann::json& result) {
  AnalysisInput in = BuildAnalysisInput(result);
  Diagnosis d = Run(in);
  nlohmann::json out;
  out["fits"] = FitsJson(in);
  out["findings"] = nlohmann::json::array();
  for (const Finding& f : d.findings) out["findings"].push_back(f);
  out["ruled_out"] = nlohmann::json::array();
  for (const Finding& f : d.ruled_out) out["ruled_out"].push_back(f);
  out["verdict"] = d.verdict;
  return out;
}

}  // namespace diagnose
}  // namespace commbench
