// World-wide barrier per iteration: every iteration waits for the slowest of all groups plus a barrier across
// the whole world, so time grows with world size even though the groups are independent. Proven by the same
// points with --sync none (or group-barrier).
#include <algorithm>

#include "lib/diagnose/rule.h"
#include "lib/diagnose/rules/common.h"
#include "lib/diagnose/rules/rules.h"

namespace commbench {
namespace diagnose {
namespace {

bool IsWorldBarrier(const SeriesData& s) { return s.point.sync == Sync::kWorldBarrier; }

class WorldBarrierRule : public Rule {
 public:
  std::string name() const override { return "world_barrier"; }
  std::string description() const override {
    return "a world-wide barrier every iteration couples independent groups: each iteration waits for all";
  }

  std::optional<Finding> Evaluate(const AnalysisInput& in) const override {
    return BestOverGrowingSeries(in, IsWorldBarrier, Build);
  }

  AbFactor ab_factor() const override { return Factor(); }

 private:
  static AbFactor Factor() {
    AbFactor f;
    f.name = "the world-wide barrier";
    f.axes = {"sync"};
    f.removes = [](const AnalysisInput&, const SeriesData& a, const SeriesData& b, const std::string&) {
      return IsWorldBarrier(a) && (b.point.sync == Sync::kNone || b.point.sync == Sync::kGroupBarrier);
    };
    return f;
  }

  static Finding Build(const AnalysisInput& in, int a) {
    const SeriesData& s = in.series[static_cast<size_t>(a)];
    const PointData& last = in.Last(s);
    Finding f;
    f.rule = "world_barrier";
    f.series = a;
    f.cause = "world-wide barrier per iteration";
    f.strength = s.fit.model == GrowthModel::kLinear ? 0.8 : 0.7;  // a barrier's cost grows with world size
    f.summary = Describe(s) + ": with a world-wide barrier every iteration, time per op grows " +
                GrowthSentence(in, s) + " across " + std::to_string(last.world) + " ranks.";
    AddGrowthEvidence(in, s, &f);
    f.evidence.push_back({"world size at G=" + std::to_string(last.groups), static_cast<double>(last.world), "ranks"});
    // The share of an iteration that is not the slowest group's own collective: barrier and waiting.
    double slowest = 0;
    for (const auto& [g, p50] : last.group_p50) slowest = std::max(slowest, p50);
    const double iteration = last.world_max_p50_us > 0 ? last.world_max_p50_us : last.median_us;
    if (slowest > 0 && iteration > slowest) {
      f.evidence.push_back(
          {"iteration minus slowest group at G=" + std::to_string(last.groups), iteration - slowest, "us"});
    }
    f.fix = "Synchronise within each group only (or not every iteration): drop the world-wide barrier from the loop.";
    ApplyAbs(in, a, Factor(), in.ConfirmCommand({{"sync", {"world-barrier", "none"}}}), &f);
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeWorldBarrierRule() { return std::make_unique<WorldBarrierRule>(); }

}  // namespace diagnose
}  // namespace commbench
