// Late arrival (issue 52): a series whose loop cost per op grows while the collective's own time (the least any
// rank spent inside it) stays flat and the ranks' arrival skew grows. The operation did not get slower; ranks
// arrive at it late, and everyone waits for the last. Which kind: one rank arriving last in most iterations (a
// straggler, busy outside the op), ranks outnumbering their cores (scheduling), or neither (something outside
// the op holds them: a barrier or work elsewhere). No A/B in a sweep varies it: always suspected.
#include "lib/diagnose/rules/late_arrival.h"

#include <algorithm>

#include "lib/diagnose/rule.h"
#include "lib/diagnose/rules/common.h"
#include "lib/diagnose/rules/rules.h"

namespace commbench {
namespace diagnose {

std::optional<result::GrowthSplit> SplitGrowth(const AnalysisInput& in, const SeriesData& s) {
  if (!s.fit.grows || s.points.size() < 2) return std::nullopt;
  const PointData& a = in.First(s);
  const PointData& b = in.Last(s);
  if (!a.has_arrival || !b.has_arrival) return std::nullopt;
  result::GrowthSplit g;
  g.time_growth_us = b.p50_us - a.p50_us;  // p50_us holds time_us.mean (analysis_input.h)
  if (g.time_growth_us <= 0) return std::nullopt;
  g.transfer_first_us = a.transfer_mean_us;
  g.transfer_last_us = b.transfer_mean_us;
  g.skew_first_us = a.skew_mean_us;
  g.skew_last_us = b.skew_mean_us;
  g.transfer_growth_us = g.transfer_last_us - g.transfer_first_us;
  g.skew_growth_us = g.skew_last_us - g.skew_first_us;
  const double flat = kFlatShareOfGrowth * g.time_growth_us, carries = kSkewShareOfGrowth * g.time_growth_us;
  if (g.skew_growth_us >= carries && g.transfer_growth_us <= flat) {
    g.reading = result::GrowthReading::kLateArrival;
  } else if (g.transfer_growth_us >= carries && g.skew_growth_us <= flat) {
    g.reading = result::GrowthReading::kTransfer;
  } else {
    g.reading = result::GrowthReading::kMixed;
  }
  return g;
}

bool GrowsByLateArrival(const AnalysisInput& in, const SeriesData& s) {
  const std::optional<result::GrowthSplit> g = SplitGrowth(in, s);
  return g && g->reading == result::GrowthReading::kLateArrival;
}

namespace {

// One rank arriving last in at least this share of its group's iterations is a straggler: scheduling delays
// fall on whichever rank the scheduler happened to hold.
constexpr double kStragglerShare = 0.8;

enum class Kind { kStraggler, kScheduling, kElsewhere };

// The group whose ranks arrive furthest apart at the last point, and its most often last rank.
const PointData::GroupArrival* LateGroup(const PointData& p) {
  const PointData::GroupArrival* late = nullptr;
  for (const PointData::GroupArrival& g : p.group_arrivals) {
    if (!late || g.skew_p50_us > late->skew_p50_us) late = &g;
  }
  return late;
}

class LateArrivalRule : public Rule {
 public:
  std::string name() const override { return "late_arrival"; }
  std::string description() const override {
    return "the collective's own time stays flat while the ranks' arrival skew grows: ranks arrive late (a "
           "straggler, scheduling, a barrier elsewhere), the op is not slower";
  }

  std::optional<Finding> Evaluate(const AnalysisInput& in) const override {
    return BestOverGrowingSeries(
        in, [](const SeriesData&) { return true; }, Build);
  }

 private:
  static std::optional<Finding> Build(const AnalysisInput& in, int a) {
    const SeriesData& s = in.series[static_cast<size_t>(a)];
    const std::optional<result::GrowthSplit> split = SplitGrowth(in, s);
    if (!split || split->reading != result::GrowthReading::kLateArrival) return std::nullopt;
    const PointData& first = in.First(s);
    const PointData& last = in.Last(s);
    const PointData::GroupArrival* late = LateGroup(last);
    const double per_core = RanksPerCore(in, s, last);
    Kind kind = Kind::kElsewhere;
    if (late && late->last_rank >= 0 && late->last_share >= kStragglerShare) {
      kind = Kind::kStraggler;
    } else if (per_core > 1.0) {
      kind = Kind::kScheduling;
    }
    Finding f;
    f.rule = "late_arrival";
    f.series = a;
    const std::string rank = late ? std::to_string(late->last_rank) : "";
    const std::string group = late ? std::to_string(late->group) : "";
    switch (kind) {
      case Kind::kStraggler:
        f.cause = "late arrival: straggler rank " + rank;
        break;
      case Kind::kScheduling:
        f.cause = "late arrival: scheduling (ranks outnumber cores)";
        break;
      case Kind::kElsewhere:
        f.cause = "late arrival (held outside the operation)";
        break;
    }
    const double share = std::min(1.0, split->skew_growth_us / split->time_growth_us);
    const double transfer_share = std::max(0.0, split->transfer_growth_us / split->time_growth_us);
    f.strength = 0.6 + 0.4 * share;
    const std::string g0 = "G=" + std::to_string(first.groups), g1 = "G=" + std::to_string(last.groups);
    std::string summary =
        Describe(s) + ": time per op grows " + GrowthSentence(in, s) + ", but the collective's own time stays flat (" +
        Fmt(split->transfer_first_us) + " us at " + g0 + ", " + Fmt(split->transfer_last_us) + " us at " + g1 + ", " +
        Fmt(100 * transfer_share, 0) +
        "% of the growth: the least any rank spent inside it) while the ranks' arrival skew grows from " +
        Fmt(split->skew_first_us) + " to " + Fmt(split->skew_last_us) + " us (" + Fmt(100 * share, 0) +
        "% of the growth" +
        (last.skew_method == result::SkewMethod::kDurations ? "; estimated from the ranks' times, without one clock"
                                                            : "") +
        "). The operation did not get slower: ranks arrive at it late and the others wait. ";
    switch (kind) {
      case Kind::kStraggler:
        summary += "Rank " + rank + " (group " + group + ") arrives last in " + Fmt(100 * late->last_share, 0) +
                   "% of the iterations at " + g1 + ": a straggler, held outside the op (its own work, its core or " +
                   "its process), not bandwidth or serialisation.";
        f.fix = "Find what keeps rank " + rank +
                " from the collective (its compute, its core, its process); balance its work or move it.";
        break;
      case Kind::kScheduling:
        summary += "No one rank arrives last (at most " + Fmt(late ? 100 * late->last_share : 0, 0) +
                   "% of the iterations) and the ranks outnumber the cores they may use (" + Fmt(per_core, 1) +
                   " per core at " + g1 + "): scheduling, ranks waiting for a core between operations.";
        f.fix = "Give every rank its own core (fewer ranks per host, pinned to distinct cores).";
        break;
      case Kind::kElsewhere:
        summary +=
            "No one rank arrives last and the ranks do not outnumber their cores: something outside the "
            "operation holds them (a barrier or work elsewhere, the application between ops).";
        f.fix = "Look at what the ranks do between operations: barriers, synchronisation or uneven work.";
        break;
    }
    f.summary = summary;
    AddGrowthEvidence(in, s, &f);
    f.evidence.push_back({"collective's own time (mean) at " + g0, split->transfer_first_us, "us"});
    f.evidence.push_back({"collective's own time (mean) at " + g1, split->transfer_last_us, "us"});
    f.evidence.push_back({"arrival skew (mean) at " + g0, split->skew_first_us, "us"});
    f.evidence.push_back({"arrival skew (mean) at " + g1, split->skew_last_us, "us"});
    f.evidence.push_back({"arrival skew p50 at " + g1, last.skew_p50_us, "us"});
    f.evidence.push_back({"arrival skew p99 at " + g1, last.skew_p99_us, "us"});
    f.evidence.push_back({"share of the growth in the skew", share, "ratio"});
    if (late && late->last_rank >= 0) {
      f.evidence.push_back({"rank arriving last most often", static_cast<double>(late->last_rank), "rank"});
      f.evidence.push_back({"share of iterations it arrived last", late->last_share, "ratio"});
    }
    f.evidence.push_back({"ranks per core at " + g1, per_core, "x"});
    // No A/B in a sweep varies when ranks arrive. Placement tells a slow rank from a slow core (the straggler's
    // command) and ranks from cores they share; held elsewhere, a repeat says whether it stays.
    ApplyAb(in, std::nullopt, "",
            kind == Kind::kElsewhere ? in.ConfirmCommand({}) : in.ConfirmCommand({{"pin", {"compact", "spread"}}}), &f);
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeLateArrivalRule() { return std::make_unique<LateArrivalRule>(); }

}  // namespace diagnose
}  // namespace commbench
