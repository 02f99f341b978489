// Communicator / context set-up growing with groups: the per-rank setup_s (rendezvous, connections,
// communicator init) rises with the group count even when the timed loop is flat. Users time the whole
// script, so this reads as "collectives get slower with more groups".
#include <algorithm>

#include "lib/diagnose/rule.h"
#include "lib/diagnose/rules/common.h"
#include "lib/diagnose/rules/rules.h"

namespace commbench {
namespace diagnose {
namespace {

constexpr double kMinAddedSeconds = 0.05;  // below this nobody notices set-up

class SetupGrowthRule : public Rule {
 public:
  std::string name() const override { return "setup_growth"; }
  std::string description() const override {
    return "communicator set-up time grows with groups while the timed loop may stay flat";
  }

  std::optional<Finding> Evaluate(const AnalysisInput& in) const override {
    std::vector<Finding> out;
    for (size_t a = 0; a < in.series.size(); ++a) {
      std::optional<Finding> f = Build(in, static_cast<int>(a));
      if (f) out.push_back(*f);
    }
    return PickBest(in, out);
  }

 private:
  static std::optional<Finding> Build(const AnalysisInput& in, int a) {
    const SeriesData& s = in.series[static_cast<size_t>(a)];
    std::vector<double> g, setup;
    for (size_t i = 0; i < s.points.size(); ++i) {
      double v = in.Point(s, i).MaxSetupS();
      if (v < 0) continue;
      g.push_back(s.groups[i]);
      setup.push_back(v);
    }
    if (g.size() < 3) return std::nullopt;
    // Set-up is measured once per rank, so there is no per-iteration noise: take a generous floor instead.
    ScalingOptions opt;
    opt.relative_noise_floor = 0.1;
    opt.min_growth_fraction = 0.5;
    opt.min_growth_us = 0;  // these are seconds: kMinAddedSeconds is the floor
    ScalingFit fit = FitScaling(g, setup, std::vector<double>(g.size(), 0), opt);
    if (!fit.grows || setup.back() - setup.front() < kMinAddedSeconds) return std::nullopt;

    Finding f;
    f.rule = "setup_growth";
    f.series = a;
    f.cause = "communicator set-up growing with groups";
    bool loop_flat = !s.fit.grows;
    // The strong reading ("set-up is what grows") only when no series' timed loop grows: where another series
    // grows (scenario A: the 64 KiB loop while the 400 B one is flat), that growth is what the user sees and
    // should rank first; set-up is then a side note.
    const bool any_loop_grows =
        std::any_of(in.series.begin(), in.series.end(), [](const SeriesData& other) { return other.fit.grows; });
    f.strength = loop_flat && !any_loop_grows ? 0.7 : 0.45;
    f.summary = Describe(s) + ": set-up (slowest rank) grows from " + Fmt(setup.front(), 3) +
                " s at G=" + Fmt(g.front(), 0) + " to " + Fmt(setup.back(), 3) + " s at G=" + Fmt(g.back(), 0) + " (" +
                Fmt(fit.line.slope, 3) + " s per added group), " +
                (loop_flat ? "while the timed loop stays flat." : "on top of the loop's own growth.");
    f.evidence.push_back({"set-up at G=" + Fmt(g.front(), 0), setup.front(), "s"});
    f.evidence.push_back({"set-up at G=" + Fmt(g.back(), 0), setup.back(), "s"});
    f.evidence.push_back({"set-up slope per added group", fit.line.slope, "s"});
    f.evidence.push_back({"timed loop growth", 100 * s.fit.growth_fraction, "%"});
    // The loop's own p50 at the ends of the series, as every finding carries: flat or not, the reader sees it.
    f.evidence.push_back({"loop cost per op at G=" + std::to_string(in.First(s).groups), in.First(s).p50_us, "us"});
    f.evidence.push_back({"loop cost per op at G=" + std::to_string(in.Last(s).groups), in.Last(s).p50_us, "us"});
    AddPointIds(in, s, &f.points);
    f.fix =
        "Create communicators once and reuse them (or split one world communicator), and exclude set-up and "
        "the first iterations from per-iteration timing.";
    // Without warm-up, the first timed iterations show how much of the set-up leaks into the loop (compare with
    // this run's figures: --warmup is a single value, not an axis).
    ApplyAb(in, std::nullopt, "", in.ConfirmCommand({{"warmup", {"0"}}}), &f);
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeSetupGrowthRule() { return std::make_unique<SetupGrowthRule>(); }

}  // namespace diagnose
}  // namespace commbench
