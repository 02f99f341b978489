#include "lib/diagnose/rules/common.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace commbench {
namespace diagnose {

std::vector<int> GrowingSeries(const AnalysisInput& in, const std::function<bool(const SeriesData&)>& pred) {
  std::vector<int> out;
  for (size_t i = 0; i < in.series.size(); ++i) {
    if (in.series[i].fit.grows && !in.series[i].explained && pred(in.series[i])) out.push_back(static_cast<int>(i));
  }
  std::stable_sort(out.begin(), out.end(), [&in](int a, int b) {
    return in.series[static_cast<size_t>(a)].fit.growth_fraction >
           in.series[static_cast<size_t>(b)].fit.growth_fraction;
  });
  return out;
}

std::string Fmt(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
  return buf;
}

std::string Describe(const SeriesData& s) {
  auto get = [&s](const char* k) {
    auto it = s.axes.find(k);
    return it == s.axes.end() ? std::string() : it->second;
  };
  std::string d = get("backend") + " " + get("op");
  if (!get("algo").empty()) d += "/" + get("algo");
  d += " " + get("bytes") + " B";
  for (const char* k : {"sync", "cpus", "pin", "stream", "h2d"}) {
    if (!get(k).empty() && get(k) != "none") d += std::string(" ") + k + "=" + get(k);
  }
  return d;
}

void AddPointIds(const AnalysisInput& in, const SeriesData& s, std::vector<std::string>* ids) {
  for (int p : s.points) ids->push_back(in.points[static_cast<size_t>(p)].id);
}

void ApplyAb(const AnalysisInput& in, const std::optional<AbComparison>& ab, const std::string& b_label,
             const std::string& confirm_command, Finding* f) {
  if (!ab) {
    f->status = FindingStatus::kSuspected;
    f->confirm_command = confirm_command;
    return;
  }
  const SeriesData& b = in.series[static_cast<size_t>(ab->b)];
  AddPointIds(in, b, &f->ab_points);
  f->cut = ab->cut;
  std::string range = "G=" + Fmt(ab->g_lo, 0) + ".." + Fmt(ab->g_hi, 0);
  f->evidence.push_back({"growth over " + range + " without the cause (" + b_label + ")", ab->growth_b_us, "us"});
  f->evidence.push_back({"growth cut by the A/B", 100 * ab->cut, "%"});
  if (ab->removed) {
    f->status = FindingStatus::kConfirmed;
    f->summary += " A/B: with " + b_label + " the growth over " + range + " fell from " + Fmt(ab->growth_a_us) +
                  " us to " + Fmt(ab->growth_b_us) + " us (cut by " + Fmt(100 * ab->cut, 0) + "%).";
  } else {
    f->status = FindingStatus::kRuledOut;
    f->summary += " A/B: with " + b_label + " the growth over " + range + " stayed (" + Fmt(ab->growth_a_us) +
                  " us vs " + Fmt(ab->growth_b_us) + " us), so this is not the cause.";
  }
}

}  // namespace diagnose
}  // namespace commbench

namespace commbench {
namespace diagnose {

std::optional<Finding> PickBest(std::vector<Finding> candidates) {
  if (candidates.empty()) return std::nullopt;
  auto rank = [](const Finding& f) {
    return f.status == FindingStatus::kConfirmed ? 0 : f.status == FindingStatus::kSuspected ? 1 : 2;
  };
  std::stable_sort(candidates.begin(), candidates.end(), [&rank](const Finding& a, const Finding& b) {
    if (rank(a) != rank(b)) return rank(a) < rank(b);
    return a.strength > b.strength;
  });
  return candidates.front();
}

std::optional<Finding> BestOverGrowingSeries(const AnalysisInput& in,
                                             const std::function<bool(const SeriesData&)>& pred,
                                             const BuildFinding& build) {
  std::vector<Finding> out;
  for (int a : GrowingSeries(in, pred)) {
    std::optional<Finding> f = build(in, a);
    if (f) out.push_back(std::move(*f));
  }
  return PickBest(std::move(out));
}

double PeakFor(const AnalysisInput& in, const SeriesData& s, std::string* which) {
  // The backend's declared transport, recorded in every point.
  const bool tcp = in.First(s).point.transport == Transport::kTcp;
  double peak = tcp ? in.tcp_loopback_gbps : in.memcpy_gbps;
  *which = tcp ? "loopback TCP peak" : "memory copy peak";
  if (peak <= 0) {
    peak = tcp ? in.memcpy_gbps : in.tcp_loopback_gbps;
    *which = tcp ? "memory copy peak" : "loopback TCP peak";
  }
  return peak;
}

std::string GrowthSentence(const AnalysisInput& in, const SeriesData& s) {
  const PointData& a = in.First(s);
  const PointData& b = in.Last(s);
  std::string model = GrowthModelName(s.fit.model);
  if (s.fit.model == GrowthModel::kStep) model += " at G=" + Fmt(s.fit.change_point, 0);
  if (s.fit.model == GrowthModel::kSaturation) model += ", levelling off at G=" + Fmt(s.fit.change_point, 0);
  return "from " + Fmt(a.p50_us) + " us at G=" + std::to_string(a.groups) + " to " + Fmt(b.p50_us) +
         " us at G=" + std::to_string(b.groups) + " (" + model + ", " + Fmt(s.fit.line.slope) + " us per added group)";
}

void AddGrowthEvidence(const AnalysisInput& in, const SeriesData& s, Finding* f) {
  const PointData& a = in.First(s);
  const PointData& b = in.Last(s);
  f->evidence.push_back({"loop cost per op at G=" + std::to_string(a.groups), a.p50_us, "us"});
  f->evidence.push_back({"loop cost per op at G=" + std::to_string(b.groups), b.p50_us, "us"});
  f->evidence.push_back({"slope per added group", s.fit.line.slope, "us"});
  f->evidence.push_back({"growth over the series", 100 * s.fit.growth_fraction, "%"});
  if (s.fit.model == GrowthModel::kStep || s.fit.model == GrowthModel::kSaturation) {
    f->evidence.push_back({std::string(GrowthModelName(s.fit.model)) + " change point", s.fit.change_point, "G"});
  }
  AddPointIds(in, s, &f->points);
}

}  // namespace diagnose
}  // namespace commbench
