// Shared memory or link bandwidth: concurrent groups split one bandwidth, so the slope appears only at large
// sizes (it scales with bytes) and the aggregate bandwidth sits near the host's peak while each group gets
// about peak/G. Proven by the same points run one group after another (--concurrency sequential).
#include <algorithm>

#include "lib/diagnose/rule.h"
#include "lib/diagnose/rules/common.h"
#include "lib/diagnose/rules/rules.h"

namespace commbench {
namespace diagnose {
namespace {

constexpr double kNearPeak = 0.5;       // aggregate at or above half the measured peak
constexpr double kFarBelowPeak = 0.25;  // aggregate below a quarter of it
constexpr double kFlatAggregate = 1.5;  // max/min of the aggregate over G >= 2 for "it stays put"

class SharedBandwidthRule : public Rule {
 public:
  std::string name() const override { return "shared_bandwidth"; }
  std::string description() const override {
    return "concurrent groups share one memory or link bandwidth: slope only at large sizes, aggregate near peak";
  }

  std::optional<Finding> Evaluate(const AnalysisInput& in) const override {
    return BestOverGrowingSeries(in, [](const SeriesData&) { return true; }, Build);
  }

 private:
  static std::optional<Finding> Build(const AnalysisInput& in, int a) {
    const SeriesData& s = in.series[static_cast<size_t>(a)];
    const PointData& last = in.Last(s);
    // A group of one working in place sends nothing and copies nothing: its bytes per second measure no
    // bandwidth (Gloo's allreduce of one rank is a no-op; the control sweep once read "813% of the peak").
    if (last.group_size == 1 && last.Axis("in_place") == "true") return std::nullopt;
    std::string peak_name;
    double peak = PeakFor(in, s, &peak_name);
    double fraction = peak > 0 ? last.aggregate_busbw_gbps / peak : 0;
    bool by_size = s.slope_vs_bytes == result::SlopeKind::kBandwidthBound;
    bool near_peak = fraction >= kNearPeak;
    // A fixed capacity shared by the groups: from G=2 on the aggregate stays put while each group's share falls.
    double agg_lo = 0, agg_hi = 0;
    int shared_points = 0;
    for (size_t i = 0; i < s.points.size(); ++i) {
      const PointData& p = in.Point(s, i);
      if (p.groups < 2 || p.aggregate_busbw_gbps <= 0) continue;
      agg_lo = shared_points == 0 ? p.aggregate_busbw_gbps : std::min(agg_lo, p.aggregate_busbw_gbps);
      agg_hi = std::max(agg_hi, p.aggregate_busbw_gbps);
      ++shared_points;
    }
    bool flat_aggregate = shared_points >= 3 && agg_hi <= kFlatAggregate * agg_lo;
    if (!by_size && !near_peak) return std::nullopt;
    Finding f;
    f.rule = "shared_bandwidth";
    f.series = a;
    f.cause = "shared memory or link bandwidth";
    // Far below a measured peak with the CPU busy, the bytes cost CPU time (copies through the kernel, the
    // reduction) rather than a saturated link.
    bool far_below = peak > 0 && fraction < kFarBelowPeak && last.saturation >= 0.85;
    f.strength =
        0.45 + (by_size ? 0.25 : 0) + (flat_aggregate ? 0.15 : 0) + (near_peak ? 0.15 : 0) - (far_below ? 0.25 : 0);
    f.summary = Describe(s) + ": time per op grows " + GrowthSentence(in, s) + ".";
    if (flat_aggregate) {
      f.summary += " From G=2 the groups together stay between " + Fmt(agg_lo, 3) + " and " + Fmt(agg_hi, 3) +
                   " GB/s: they split one capacity.";
    }
    if (by_size) {
      f.summary += " The slope scales with bytes (" + Fmt(100 * s.bytes_share, 0) +
                   "% of it is the bytes term at this size), so it is bandwidth, not per-operation overhead.";
    }
    if (peak > 0) {
      f.summary +=
          " At G=" + std::to_string(last.groups) + " the groups move " + Fmt(last.aggregate_busbw_gbps, 2) +
          " GB/s together, " + Fmt(100 * fraction, 0) + "% of the " + peak_name + " (" + Fmt(peak, 2) +
          " GB/s); each group gets " + Fmt(last.busbw_gbps, 2) + " GB/s" +
          (far_below ? ": far below the peak, so the bytes more likely cost CPU time than link bandwidth." : ".");
    }
    AddGrowthEvidence(in, s, &f);
    f.evidence.push_back({"share of the slope from bytes at this size", s.bytes_share, "ratio"});
    std::vector<int> sibs = in.SizeSiblings(a);
    if (sibs.size() >= 2 && sibs.front() != a) {
      const SeriesData& small = in.series[static_cast<size_t>(sibs.front())];
      f.evidence.push_back(
          {"slope per group at " + std::to_string(in.First(small).bytes) + " B", small.fit.line.slope, "us"});
    }
    f.evidence.push_back({"aggregate busbw at G=" + std::to_string(last.groups), last.aggregate_busbw_gbps, "GB/s"});
    if (shared_points > 0) {
      f.evidence.push_back({"lowest aggregate busbw over G>=2", agg_lo, "GB/s"});
      f.evidence.push_back({"highest aggregate busbw over G>=2", agg_hi, "GB/s"});
    }
    f.evidence.push_back({"per-group busbw at G=" + std::to_string(last.groups), last.busbw_gbps, "GB/s"});
    if (peak > 0) {
      f.evidence.push_back({peak_name, peak, "GB/s"});
      f.evidence.push_back({"aggregate as a fraction of peak", fraction, "ratio"});
    }
    f.fix =
        "The groups split one bandwidth (per-group about peak/G): overlap fewer large collectives, fuse or "
        "shrink the buffers, or place groups on links and memory they do not share.";
    std::optional<AbComparison> ab = in.BestAb(
        a, in.Partners(a, "concurrency"), [](const SeriesData& b) { return b.axes.at("concurrency") == "sequential"; });
    ApplyAb(in, ab, "groups one after another", in.ConfirmCommand({{"concurrency", {"concurrent", "sequential"}}}), &f);
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeSharedBandwidthRule() { return std::make_unique<SharedBandwidthRule>(); }

}  // namespace diagnose
}  // namespace commbench
