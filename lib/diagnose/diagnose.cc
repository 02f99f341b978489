#include "lib/diagnose/diagnose.h"

#include <algorithm>
#include <cmath>

#include "lib/diagnose/rule.h"
#include "lib/diagnose/rules/outside_load.h"

namespace commbench {
namespace diagnose {
namespace {

// One fit per series: its axes, the p50 per G, the line, the chosen model and what the rules read.
std::vector<result::Fit> Fits(const AnalysisInput& in) {
  std::vector<result::Fit> fits;
  for (const SeriesData& s : in.series) {
    result::Fit f;
    f.series = in.First(s).point;
    for (double g : s.groups) f.groups.push_back(static_cast<int>(g));
    f.p50_us = s.p50_us;
    f.slope_us_per_group = s.fit.line.slope;
    f.intercept_us = s.fit.line.intercept;
    f.r2 = s.fit.line.r2;
    f.model = s.fit.model;
    f.change_point = s.fit.change_point;
    f.level_before_us = s.fit.level_before;
    f.level_after_us = s.fit.level_after;
    f.growth_us = s.fit.growth;
    f.growth_fraction = s.fit.growth_fraction;
    f.grows = s.fit.grows;
    f.noise_us = s.fit.noise;
    f.slope_vs_bytes = s.slope_vs_bytes;
    f.bytes_share = s.bytes_share;
    for (int p : s.points) f.points.push_back(in.points[static_cast<size_t>(p)].id);
    fits.push_back(std::move(f));
  }
  return fits;
}

}  // namespace

result::Diagnosis Run(const AnalysisInput& in) {
  result::Diagnosis d;
  d.fits = Fits(in);
  d.excluded = in.excluded;
  bool enough =
      std::any_of(in.series.begin(), in.series.end(), [](const SeriesData& s) { return s.groups.size() >= 2; });
  if (!enough) {
    d.verdict = result::Verdict::kInsufficientData;
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
  NoteOutsideLoad(in, &d.findings);  // growth measured beside another process is not the ranks' alone
  NoteOutsideLoad(in, &d.ruled_out);
  std::stable_sort(d.findings.begin(), d.findings.end(),
                   [](const Finding& a, const Finding& b) { return a.Score() > b.Score(); });
  // Set-up growing with groups is a cost growing with groups too, even when the timed loop is flat.
  bool grows = std::any_of(in.series.begin(), in.series.end(), [](const SeriesData& s) { return s.fit.grows; }) ||
               !d.findings.empty();
  d.verdict = grows ? result::Verdict::kGrowth : result::Verdict::kNoGrowth;
  if (!grows) d.ruled_out.clear();
  return d;
}

result::Diagnosis Diagnose(const std::vector<result::PointResult>& points, const std::string& command,
                           const result::Environment& environment) {
  return Run(BuildAnalysisInput(points, command, environment));
}

}  // namespace diagnose
}  // namespace commbench
