#include "lib/diagnose/diagnose.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>

#include "lib/diagnose/caveats.h"
#include "lib/diagnose/rule.h"
#include "lib/diagnose/rules/common.h"
#include "lib/diagnose/rules/late_arrival.h"
#include "lib/diagnose/rules/outside_load.h"
#include "lib/diagnose/shape.h"

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
    f.split = SplitGrowth(in, s);  // issue 52: transfer or late arrival
    fits.push_back(std::move(f));
  }
  return fits;
}

// The rules in `todo` over `in` (the others give nullopt). One A/B confirms at most one cause: a pair that
// several findings claim goes to the rule whose factor it varies (CreditSharedAbs), and the other claimants are
// evaluated again with the credit in `in`, so that their findings say which cause the pair supports.
std::vector<std::optional<Finding>> EvaluateRules(const std::vector<const Rule*>& rules, const std::vector<bool>& todo,
                                                  AnalysisInput* in) {
  std::map<std::string, AbFactor> factors;
  for (const Rule* r : rules) factors[r->name()] = r->ab_factor();
  auto factor_of = [&factors](const std::string& rule) -> const AbFactor* {
    auto it = factors.find(rule);
    return it == factors.end() ? nullptr : &it->second;
  };
  std::vector<std::optional<Finding>> out(rules.size());
  for (size_t r = 0; r < rules.size(); ++r) {
    if (todo[r]) out[r] = rules[r]->Evaluate(*in);
  }
  // Each round settles the pairs claimed so far; a finding evaluated again may move to other pairs.
  for (size_t round = 0; round < rules.size(); ++round) {
    std::vector<Finding> present;
    for (const auto& f : out) {
      if (f) present.push_back(*f);
    }
    std::vector<size_t> again;
    for (const auto& [pair, credit] : CreditSharedAbs(*in, present, factor_of)) {
      in->ab_credit[pair] = credit;
      for (size_t r = 0; r < rules.size(); ++r) {
        if (!out[r] || out[r]->rule == credit.rule) continue;
        for (const result::AbRecord& ab : out[r]->ab) {
          if (ab.a_series == pair.first && ab.b_series == pair.second) again.push_back(r);
        }
      }
    }
    if (again.empty()) break;
    for (size_t r : again) out[r] = rules[r]->Evaluate(*in);
  }
  return out;
}

}  // namespace

result::Diagnosis Run(const AnalysisInput& in) {
  std::vector<const Rule*> rules;
  for (const auto& r : Rules()) rules.push_back(r.get());
  return Run(in, rules);
}

result::Diagnosis Run(const AnalysisInput& input, const std::vector<const Rule*>& rules) {
  AnalysisInput in = input;
  result::Diagnosis d;
  d.fits = Fits(in);
  d.noise_floor = in.noise_floor;
  d.excluded = in.excluded;
  bool enough =
      std::any_of(in.series.begin(), in.series.end(), [](const SeriesData& s) { return s.groups.size() >= 2; });
  if (!enough) {
    d.verdict = result::Verdict::kInsufficientData;
    return d;
  }
  // Pass 1: every rule on every series. A confirmed finding explains its series; pass 2 lets the other rules
  // look for their causes in what is left, so that one planted cause is not echoed by every rule.
  std::vector<std::optional<Finding>> first = EvaluateRules(rules, std::vector<bool>(rules.size(), true), &in);
  AnalysisInput rest = in;
  bool any_confirmed = false;
  for (const auto& f : first) {
    if (f && f->status == FindingStatus::kConfirmed && f->series >= 0) {
      rest.series[static_cast<size_t>(f->series)].explained = true;
      any_confirmed = true;
    }
  }
  std::vector<bool> again(rules.size(), false);
  for (size_t r = 0; r < rules.size(); ++r) {
    again[r] = any_confirmed && !(first[r] && first[r]->status == FindingStatus::kConfirmed);
  }
  std::vector<std::optional<Finding>> second = EvaluateRules(rules, again, &rest);
  for (size_t r = 0; r < rules.size(); ++r) {
    std::optional<Finding> f = again[r] ? second[r] : first[r];
    // A finding whose A/B went to another cause stays, saying so, even when that cause explains its series.
    if (!f && first[r] && std::any_of(first[r]->ab.begin(), first[r]->ab.end(), [](const result::AbRecord& ab) {
          return !ab.supports_cause.empty();
        })) {
      f = first[r];
    }
    if (!f) continue;
    for (Finding& elsewhere : f->ruled_out_elsewhere) d.ruled_out.push_back(std::move(elsewhere));
    f->ruled_out_elsewhere.clear();
    (f->status == FindingStatus::kRuledOut ? d.ruled_out : d.findings).push_back(*f);
  }
  NoteOutsideLoad(in, &d.findings);  // growth measured beside another process is not the ranks' alone
  NoteOutsideLoad(in, &d.ruled_out);
  // One whose A/B another process disturbed is no longer ruled out: it is still a suspect.
  auto still_suspect = [](const Finding& f) { return f.status != FindingStatus::kRuledOut; };
  std::copy_if(d.ruled_out.begin(), d.ruled_out.end(), std::back_inserter(d.findings), still_suspect);
  d.ruled_out.erase(std::remove_if(d.ruled_out.begin(), d.ruled_out.end(), still_suspect), d.ruled_out.end());
  // Confirmed first; then findings about the loops the user asked for before those about a loop --explain added
  // as an A/B side (a cause it amplified there may be real, but it is not what the user's loop pays); then one
  // whose deciding A/B took the cause out of its own loop before one whose A/B added it to another loop (it shows
  // the factor matters, not how much of this loop's growth it accounts for); then score.
  auto removed_here = [](const Finding& f) {
    const int k = JudgeAbs(f.ab).decisive;
    return k >= 0 && f.ab[static_cast<size_t>(k)].a_side.empty();
  };
  std::stable_sort(d.findings.begin(), d.findings.end(), [&](const Finding& a, const Finding& b) {
    const bool ca = a.status == FindingStatus::kConfirmed, cb = b.status == FindingStatus::kConfirmed;
    if (ca != cb) return ca;
    const bool ra = OnRequestedSeries(in, a), rb = OnRequestedSeries(in, b);
    if (ra != rb) return ra;
    if (ca && removed_here(a) != removed_here(b)) return removed_here(a);
    return a.Score() > b.Score();
  });
  // Set-up growing with groups is a cost growing with groups too, even when the timed loop is flat.
  bool grows = std::any_of(in.series.begin(), in.series.end(), [](const SeriesData& s) { return s.fit.grows; }) ||
               !d.findings.empty();
  d.verdict = grows ? result::Verdict::kGrowth : result::Verdict::kNoGrowth;
  if (!grows) {
    d.ruled_out.clear();
    d.caveats = NoGrowthCaveats(in);
    const bool not_a_line = std::any_of(in.series.begin(), in.series.end(), [&in](const SeriesData& s) {
      const Shape shape = ShapeOf(in, s).shape;
      return shape != Shape::kLine && shape != Shape::kTrend;
    });
    if (not_a_line) d.verdict = result::Verdict::kNotALine;
  }
  return d;
}

result::Diagnosis Diagnose(const std::vector<result::PointResult>& points, const std::string& command,
                           const result::Environment& environment, int64_t requested_points) {
  return Run(BuildAnalysisInput(points, command, environment, {}, requested_points));
}

result::Diagnosis Diagnose(const result::ResultFile& file) {
  const result::ExplainRecord* explain = file.trailer.explain ? &*file.trailer.explain : nullptr;
  AnalysisInput in = BuildAnalysisInput(file.points, file.header.command, file.header.environment, {},
                                        explain ? explain->first_phase_points : -1);
  if (explain) AttachInterleaved(*explain, &in);
  return Run(in);
}

}  // namespace diagnose
}  // namespace commbench
