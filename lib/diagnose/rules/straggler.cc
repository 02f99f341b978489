// Straggler group or rank: one group is consistently slower than the others, so the per-iteration max (what
// the job feels) jumps once that group takes part. Localised by the per-group times and the arrival skew; a
// placement A/B (--pin) tells a slow rank from a slow core.
#include <algorithm>
#include <map>
#include <utility>

#include "lib/diagnose/rule.h"
#include "lib/diagnose/rules/common.h"
#include "lib/diagnose/rules/late_arrival.h"
#include "lib/diagnose/rules/rules.h"
#include "lib/stats/summary.h"

namespace commbench {
namespace diagnose {
namespace {

constexpr double kMinRatio = 1.2;        // slowest group vs the median of the others
constexpr double kMinConsistency = 0.6;  // share of multi-group points where the same group is slowest
// The other groups stay within this factor of the series' G=1 time wherever the slow group is the slowest: the
// growth is that group's alone, whatever shape the fit picked for a short series.
constexpr double kFlatOthers = 1.5;
// ... and only for a clear straggler: on a busy 2-core host one group of an oversubscribed sweep came out
// 1.5-4.1x the others by chance (with them still near the G=1 time), a rank planted to sleep 2 ms per 30 us
// iteration 29-192x.
constexpr double kAloneRatio = 5;
// The step-where-it-joins bonus likewise needs a group clearly slower than the others: the same host produced
// a 1.4x "straggler" whose series happened to step where that group joined.
constexpr double kOnsetRatio = 2;
// Less strength for a slowest group on cores the ranks outnumber, with neither of those (Build says why).
constexpr double kByChanceOnBusyCores = 0.15;

double Median(std::vector<double> v) { return MedianOr(std::move(v), 0); }  // no other groups: 0

// The group most often the slowest, by at least kMinRatio over the other groups' median, at the multi-group points.
struct SlowGroup {
  int group = -1;
  int slowest_points = 0;    // multi-group points where it is the slowest by kMinRatio
  int multi = 0;             // multi-group points
  double consistency = 0;    // slowest_points / multi
  double ratio = 0;          // median over those points of its p50 / the other groups' median
  bool others_flat = false;  // at those points the other groups stayed within kFlatOthers of the G=1 time
};

// Nothing unless it is the slowest at two points or more and at kMinConsistency of the multi-group points.
std::optional<SlowGroup> FindSlowGroup(const AnalysisInput& in, const SeriesData& s) {
  std::map<int, int> slowest_count;
  std::map<int, std::vector<double>> ratios;
  std::map<int, bool> others_flat;  // per slow group: the other groups stayed near the G=1 time
  const double base_us = in.First(s).p50_us;
  int multi = 0;
  for (size_t i = 0; i < s.points.size(); ++i) {
    const PointData& p = in.Point(s, i);
    if (p.group_p50.size() < 2) continue;
    ++multi;
    auto slowest = std::max_element(p.group_p50.begin(), p.group_p50.end(),
                                    [](const auto& x, const auto& y) { return x.second < y.second; });
    std::vector<double> others;
    for (const auto& gp : p.group_p50) {
      if (gp.first != slowest->first) others.push_back(gp.second);
    }
    double ratio = Median(others) > 0 ? slowest->second / Median(others) : 0;
    if (ratio >= kMinRatio) {
      ++slowest_count[slowest->first];
      ratios[slowest->first].push_back(ratio);
      bool flat = base_us > 0 && Median(others) <= kFlatOthers * base_us;
      others_flat[slowest->first] = others_flat.count(slowest->first) ? others_flat[slowest->first] && flat : flat;
    }
  }
  if (multi < 2 || slowest_count.empty()) return std::nullopt;
  auto top = std::max_element(slowest_count.begin(), slowest_count.end(),
                              [](const auto& x, const auto& y) { return x.second < y.second; });
  SlowGroup g;
  g.group = top->first;
  g.slowest_points = top->second;
  g.multi = multi;
  g.consistency = static_cast<double>(top->second) / multi;
  if (g.consistency < kMinConsistency || g.slowest_points < 2) return std::nullopt;
  g.ratio = Median(ratios[g.group]);
  g.others_flat = others_flat[g.group];
  return g;
}

// The rank: the one that most often arrives last, among the slow group's ranks (-1 without skew data), and the
// largest start skew at the points where that group is the slowest.
struct LastArrival {
  int rank = -1;
  double skew_us = 0;
};

LastArrival FindLastArrival(const AnalysisInput& in, const SeriesData& s, int group) {
  std::map<int, int> rank_count;
  LastArrival last;
  for (size_t i = 0; i < s.points.size(); ++i) {
    const PointData& p = in.Point(s, i);
    if (!p.has_skew || p.slowest_group != group) continue;
    ++rank_count[p.slowest_rank];
    last.skew_us = std::max(last.skew_us, p.start_skew_us);
  }
  if (!rank_count.empty()) {
    last.rank = std::max_element(rank_count.begin(), rank_count.end(), [](const auto& x, const auto& y) {
                  return x.second < y.second;
                })->first;
  }
  return last;
}

// onset: the time steps up exactly when the slow group joins; alone: only that group got slower.
std::string Summary(const AnalysisInput& in, const SeriesData& s, const SlowGroup& slow, const LastArrival& last,
                    bool onset, bool alone) {
  std::string summary = Describe(s) + ": group " + std::to_string(slow.group) + " is the slowest in " +
                        std::to_string(slow.slowest_points) + " of " + std::to_string(slow.multi) +
                        " multi-group points, " + Fmt(slow.ratio, 2) + "x the other groups' median";
  if (last.rank >= 0) summary += "; rank " + std::to_string(last.rank) + " arrives last most often";
  summary += onset ? "; the time steps up exactly when group " + std::to_string(slow.group) +
                         " joins (G=" + std::to_string(slow.group + 1) + ")."
                   : ".";
  if (alone && !onset) {
    summary += " The other groups stay within " + Fmt(kFlatOthers, 1) +
               "x of the G=" + std::to_string(in.First(s).groups) + " time: the growth is that group's alone.";
  }
  return summary;
}

void AddStragglerEvidence(const SlowGroup& slow, const LastArrival& last, Finding* f) {
  f->evidence.push_back({"slow group", static_cast<double>(slow.group), "group"});
  f->evidence.push_back({"slow group p50 / other groups' median", slow.ratio, "x"});
  f->evidence.push_back({"points where it is the slowest", slow.consistency, "ratio"});
  if (last.rank >= 0) f->evidence.push_back({"rank arriving last most often", static_cast<double>(last.rank), "rank"});
  if (last.skew_us > 0) f->evidence.push_back({"largest start skew with that group slowest", last.skew_us, "us"});
}

class StragglerRule : public Rule {
 public:
  std::string name() const override { return "straggler"; }
  std::string description() const override {
    return "one group or rank is consistently slower: the iteration max jumps once it takes part";
  }

  std::optional<Finding> Evaluate(const AnalysisInput& in) const override {
    return BestOverGrowingSeries(
        in, [](const SeriesData&) { return true; }, Build);
  }

 private:
  static std::optional<Finding> Build(const AnalysisInput& in, int a) {
    const SeriesData& s = in.series[static_cast<size_t>(a)];
    // A straggler whose ranks only arrive late, the op's own time flat, is late_arrival's (it names the rank).
    if (GrowsByLateArrival(in, s)) return std::nullopt;
    const std::optional<SlowGroup> slow = FindSlowGroup(in, s);
    if (!slow) return std::nullopt;
    const int group = slow->group;
    const LastArrival last = FindLastArrival(in, s, group);
    bool onset = s.fit.model == GrowthModel::kStep && static_cast<int>(s.fit.change_point) == group + 1 &&
                 slow->ratio >= kOnsetRatio;
    // Only the slow group got slower: the growth is the straggler's. Blocking waits or a busy CPU would slow
    // every group (the wake-up rule also fires on a rank that sleeps, so this is what ranks the straggler first).
    bool alone = slow->others_flat && in.First(s).groups == 1 && slow->ratio >= kAloneRatio;

    Finding f;
    f.rule = "straggler";
    f.series = a;
    f.cause = "straggler group " + std::to_string(group) +
              (last.rank >= 0 ? " (rank " + std::to_string(last.rank) + ")" : "");
    // "Slowest in 2 of 2" is cheap: with no fault planted, one group of a G=1..3 sweep on a busy 2-core host came
    // out 1.3-1.7x the others at both multi-group points in about one run in four. Consistency counts in full
    // from three multi-group points on.
    const double support = std::min(1.0, slow->multi / 3.0);
    f.strength = 0.4 + 0.3 * slow->consistency * support + (onset || alone ? 0.3 : 0);
    // Where the ranks outnumber the cores, the scheduler makes some group the slowest by chance, and pinning
    // keeps it so: plant (a) (12 ranks pinned on 2 cores, nothing slow planted) found a group slowest in 3 of
    // 5 points at 1.35x. Only an onset or a group slow alone sets a straggler apart there.
    if (!onset && !alone && RanksPerCore(in, s, in.Last(s)) > 1.0) f.strength -= kByChanceOnBusyCores;
    f.summary = Summary(in, s, *slow, last, onset, alone);
    AddGrowthEvidence(in, s, &f);
    AddStragglerEvidence(*slow, last, &f);
    f.fix = "Localise and replace or fix the slow " + std::string(last.rank >= 0 ? "rank" : "group") +
            " (its core, process or link); until then keep it out of latency-critical groups.";
    // Moving the ranks to other cores separates a slow rank (slowness follows the rank) from a slow core.
    ApplyAb(in, std::nullopt, "", in.ConfirmCommand({{"pin", {"compact", "spread"}}}), &f);
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeStragglerRule() { return std::make_unique<StragglerRule>(); }

}  // namespace diagnose
}  // namespace commbench
