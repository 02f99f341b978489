// Straggler group or rank: one group is consistently slower than the others, so the per-iteration max (what
// the job feels) jumps once that group takes part. Localised by the per-group times and the arrival skew; a
// placement A/B (--pin) tells a slow rank from a slow core.
#include <algorithm>
#include <map>

#include "lib/diagnose/rule.h"
#include "lib/diagnose/rules/common.h"
#include "lib/diagnose/rules/rules.h"

namespace commbench {
namespace diagnose {
namespace {

constexpr double kMinRatio = 1.2;        // slowest group vs the median of the others
constexpr double kMinConsistency = 0.6;  // share of multi-group points where the same group is slowest

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

class StragglerRule : public Rule {
 public:
  std::string name() const override { return "straggler"; }
  std::string description() const override {
    return "one group or rank is consistently slower: the iteration max jumps once it takes part";
  }

  std::optional<Finding> Evaluate(const AnalysisInput& in) const override {
    std::vector<Finding> out;
    for (int a : GrowingSeries(in, [](const SeriesData&) { return true; })) {
      std::optional<Finding> f = Build(in, a);
      if (f) out.push_back(*f);
    }
    return PickBest(out);
  }

 private:
  static std::optional<Finding> Build(const AnalysisInput& in, int a) {
    const SeriesData& s = in.series[static_cast<size_t>(a)];
    std::map<int, int> slowest_count;
    std::map<int, std::vector<double>> ratios;
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
      }
    }
    if (multi < 2 || slowest_count.empty()) return std::nullopt;
    auto top = std::max_element(slowest_count.begin(), slowest_count.end(),
                                [](const auto& x, const auto& y) { return x.second < y.second; });
    int group = top->first;
    double consistency = static_cast<double>(top->second) / multi;
    if (consistency < kMinConsistency || top->second < 2) return std::nullopt;

    // The rank: the one that most often arrives last, among the slow group's ranks.
    std::map<int, int> rank_count;
    double skew = 0;
    for (size_t i = 0; i < s.points.size(); ++i) {
      const PointData& p = in.Point(s, i);
      if (!p.has_skew || p.slowest_group != group) continue;
      ++rank_count[p.slowest_rank];
      skew = std::max(skew, p.start_skew_us);
    }
    int rank = -1;
    if (!rank_count.empty()) {
      rank = std::max_element(rank_count.begin(), rank_count.end(), [](const auto& x, const auto& y) {
               return x.second < y.second;
             })->first;
    }
    bool onset = s.fit.model == GrowthModel::kStep && static_cast<int>(s.fit.change_point) == group + 1;

    Finding f;
    f.rule = "straggler";
    f.series = a;
    f.cause = "straggler group " + std::to_string(group) + (rank >= 0 ? " (rank " + std::to_string(rank) + ")" : "");
    f.strength = 0.4 + 0.3 * consistency + (onset ? 0.3 : 0);
    double ratio = Median(ratios[group]);
    f.summary = Describe(s) + ": group " + std::to_string(group) + " is the slowest in " + std::to_string(top->second) +
                " of " + std::to_string(multi) + " multi-group points, " + Fmt(ratio, 2) + "x the other groups' median";
    if (rank >= 0) f.summary += "; rank " + std::to_string(rank) + " arrives last most often";
    f.summary += onset ? "; the time steps up exactly when group " + std::to_string(group) +
                             " joins (G=" + std::to_string(group + 1) + ")."
                       : ".";
    AddGrowthEvidence(in, s, &f);
    f.evidence.push_back({"slow group", static_cast<double>(group), "group"});
    f.evidence.push_back({"slow group p50 / other groups' median", ratio, "x"});
    f.evidence.push_back({"points where it is the slowest", consistency, "ratio"});
    if (rank >= 0) f.evidence.push_back({"rank arriving last most often", static_cast<double>(rank), "rank"});
    if (skew > 0) f.evidence.push_back({"largest start skew with that group slowest", skew, "us"});
    f.fix = "Localise and replace or fix the slow " + std::string(rank >= 0 ? "rank" : "group") +
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
