// Contention between concurrent groups for a shared resource. Proven by the same points with the groups run one
// after another (--concurrency sequential), which removes every kind of contention between them at once: it
// confirms that the groups contend, not for what. A second measurement names the resource: memory or link
// bandwidth when the slope scales with bytes or the groups together move near the host's peak (each group about
// peak/G); CPU when ranks outnumber cores, the CPU is saturated and the slope does not scale with bytes;
// otherwise the finding says it cannot tell, and why. (The rule id stays shared_bandwidth for older files.)
#include <algorithm>
#include <utility>

#include "lib/diagnose/rule.h"
#include "lib/diagnose/rules/common.h"
#include "lib/diagnose/rules/late_arrival.h"
#include "lib/diagnose/rules/rules.h"

namespace commbench {
namespace diagnose {
namespace {

constexpr double kNearPeak = 0.5;       // aggregate at or above half the measured peak
constexpr double kFarBelowPeak = 0.25;  // aggregate below a quarter of it
// Above one and a half times the peak the bytes stay in caches: no link or memory bus is what limits them.
constexpr double kAbovePeak = 1.5;
constexpr double kFlatAggregate = 1.5;  // max/min of the aggregate over G >= 2 for "it stays put"

constexpr double kSaturated = 0.85;  // CPU saturation at which the CPU is the likely shared resource

bool Sequential(const SeriesData& s) { return s.point.concurrency == Concurrency::kSequential; }

// What the groups share, read from a measurement other than the A/B: the slope against bytes, the aggregate
// bandwidth against the host's peak, and ranks per core with the CPU's saturation.
struct ResourceReading {
  enum Kind { kBandwidth, kCpu, kCannotTell } kind = kCannotTell;
  std::string sentence;  // the reading with its figures
};

class SharedBandwidthRule : public Rule {
 public:
  std::string name() const override { return "shared_bandwidth"; }
  std::string description() const override {
    return "concurrent groups contend for a shared resource (memory or link bandwidth, or CPU): gone when they "
           "take turns";
  }

  std::optional<Finding> Evaluate(const AnalysisInput& in) const override {
    return BestOverGrowingSeries(
        in, [](const SeriesData& s) { return !Sequential(s); }, Build);
  }

  AbFactor ab_factor() const override { return Factor(); }

 private:
  static AbFactor Factor() {
    AbFactor f;
    f.name = "concurrency between groups";
    f.axes = {"concurrency"};
    f.removes = [](const AnalysisInput&, const SeriesData& a, const SeriesData& b, const std::string&) {
      return !Sequential(a) && Sequential(b);
    };
    return f;
  }

  // Ranks outnumber the cores and keep them busy.
  static bool CpuBound(const AnalysisInput& in, const SeriesData& s) {
    return RanksPerCore(in, s, in.Last(s)) > 1.0 && in.Last(s).saturation >= kSaturated;
  }

  static ResourceReading ReadResource(const AnalysisInput& in, const SeriesData& s, bool by_size, bool near_peak,
                                      double fraction, const std::string& peak_name) {
    const PointData& last = in.Last(s);
    const double rpc = RanksPerCore(in, s, last);
    const bool cpu_bound = CpuBound(in, s);
    const std::string at = " at G=" + std::to_string(last.groups);
    const std::string bytes_text =
        s.slope_vs_bytes == result::SlopeKind::kUnknown
            ? "one size only, so whether the slope scales with bytes is not measured"
        : by_size ? "the slope scales with bytes (" + Fmt(100 * s.bytes_share, 0) + "% of it is the bytes term)"
                  : "the slope does not scale with bytes (" + Fmt(100 * s.bytes_share, 0) + "% bytes term)";
    const std::string peak_text =
        fraction > 0 ? "the groups together move " + Fmt(100 * fraction, 0) + "% of the " + peak_name + at
        : in.First(s).point.gpu_backend() ? "no device peak is measured"
                                          : "no host peak was measured";
    const std::string cpu_text = Fmt(rpc) + " ranks per core and CPU saturation " + Fmt(last.saturation, 2) + at;
    ResourceReading r;
    if ((by_size || near_peak) && (!cpu_bound || near_peak)) {
      r.kind = ResourceReading::kBandwidth;
      std::string why = by_size ? "bytes term " + Fmt(100 * s.bytes_share, 0) + "% of the slope" : "";
      if (fraction > 0)
        why += (why.empty() ? "" : ", ") + ("aggregate " + Fmt(100 * fraction, 0) + "% of the " + peak_name);
      r.sentence = "The shared resource is memory or link bandwidth (" + why + ").";
    } else if (cpu_bound && !by_size) {
      r.kind = ResourceReading::kCpu;
      r.sentence = "The shared resource is CPU: " + cpu_text + ", and " + bytes_text + ".";
    } else if (cpu_bound) {
      r.sentence = "Which resource they share cannot be told: " + bytes_text + ", but with " + cpu_text + " and " +
                   peak_text + " the bytes may as well cost CPU time (copies, the reduction).";
    } else {
      r.sentence = "Which resource they share cannot be told: " + bytes_text + ", " + peak_text + ", and " + cpu_text +
                   " (neither bandwidth nor CPU shows its signature).";
    }
    return r;
  }

  // Over 80 lines: the finding's evidence is read in one pass over the series, in the order its summary states it.
  static std::optional<Finding> Build(const AnalysisInput& in, int a) {
    const SeriesData& s = in.series[static_cast<size_t>(a)];
    // Contention slows the operation itself: a flat transfer under a growing skew is late arrival, not this.
    if (GrowsByLateArrival(in, s)) return std::nullopt;
    const PointData& last = in.Last(s);
    // A group of one working in place sends nothing: its bus bandwidth is no measure of a link or of memory
    // against the host's peak (the control sweep once read "813% of the peak"). Whether it copies is measured,
    // not assumed: Gloo's in-place allreduce of one rank took 44 us at 1 MiB and 1.5 us at 64 KiB on the 2-core
    // VM, a copy, and two such groups at once slowed each other's typical op by up to 42 % there. The slope
    // against bytes says so.
    const bool moves_bytes = !(last.group_size == 1 && last.point.in_place);
    std::string peak_name;
    double peak = PeakFor(in, s, &peak_name);
    double fraction = peak > 0 && moves_bytes ? last.aggregate_busbw_gbps / peak : 0;
    bool by_size = s.slope_vs_bytes == result::SlopeKind::kBandwidthBound;
    // The host's peaks (loopback TCP, memory copy) are what its own cores move: where the ranks outnumber them,
    // an aggregate near a peak is what the cores can copy, the CPU's signature, not a link or a bus filling up.
    // Saturated or not: ranks that wait for the time slices their peers need leave the cores idle between
    // copies (plant (a): 6 ranks per core at saturation 0.68-0.81 read "52-53 % of the loopback peak" in 2 of 15
    // runs; two native ranks of 1 MiB on one core read "130 % of the memory copy peak" in a CI run).
    const bool peak_is_cpu = peak > 0 && RanksPerCore(in, s, last) > 1.0;
    bool near_peak = fraction >= kNearPeak && fraction <= kAbovePeak && !peak_is_cpu;
    // A fixed capacity shared by the groups: from G=2 on the aggregate stays put while each group's share falls.
    double agg_lo = 0, agg_hi = 0;
    int shared_points = 0;
    for (size_t i = 0; moves_bytes && i < s.points.size(); ++i) {
      const PointData& p = in.Point(s, i);
      if (p.groups < 2 || p.aggregate_busbw_gbps <= 0) continue;
      agg_lo = shared_points == 0 ? p.aggregate_busbw_gbps : std::min(agg_lo, p.aggregate_busbw_gbps);
      agg_hi = std::max(agg_hi, p.aggregate_busbw_gbps);
      ++shared_points;
    }
    bool flat_aggregate = shared_points >= 3 && agg_hi <= kFlatAggregate * agg_lo;
    // Without a bandwidth signature the rule speaks only where the sequential A/B was measured: it must be reported.
    std::vector<result::AbRecord> abs = EvaluateAbs(in, a, Factor(), "shared_bandwidth");
    if (!by_size && !near_peak && abs.empty()) return std::nullopt;
    const ResourceReading resource = ReadResource(in, s, by_size, near_peak, fraction, peak_name);
    Finding f;
    f.rule = "shared_bandwidth";
    f.series = a;
    f.cause = resource.kind == ResourceReading::kBandwidth ? "groups contend for memory or link bandwidth"
              : resource.kind == ResourceReading::kCpu
                  ? "groups contend for CPU"
                  : "groups contend for a shared resource (which one: cannot tell)";
    // Far below a measured peak with the CPU busy, the bytes cost CPU time (copies through the kernel, the
    // reduction) rather than a saturated link.
    bool far_below = peak > 0 && fraction < kFarBelowPeak && last.saturation >= 0.85;
    f.strength = by_size || near_peak ? 0.45 + (by_size ? 0.25 : 0) + (flat_aggregate ? 0.15 : 0) +
                                            (near_peak ? 0.15 : 0) - (far_below ? 0.25 : 0)
                                      : 0.35 + (resource.kind == ResourceReading::kCpu ? 0.1 : 0);
    f.summary = Describe(s) + ": time per op grows " + GrowthSentence(in, s) + ".";
    if (flat_aggregate) {
      f.summary += " From G=2 the groups together stay between " + Fmt(agg_lo, 3) + " and " + Fmt(agg_hi, 3) +
                   " GB/s: they split one capacity.";
    }
    if (peak > 0 && moves_bytes) {
      f.summary +=
          " At G=" + std::to_string(last.groups) + " the groups move " + Fmt(last.aggregate_busbw_gbps, 2) +
          " GB/s together, " + Fmt(100 * fraction, 0) + "% of the " + peak_name + " (" + Fmt(peak, 2) +
          " GB/s); each group gets " + Fmt(last.busbw_gbps, 2) + " GB/s" +
          (far_below ? ": far below the peak, so the bytes more likely cost CPU time than link bandwidth." : ".");
    }
    if (by_size) {
      f.summary += " The slope scales with bytes (" + Fmt(100 * s.bytes_share, 0) +
                   "% of it is the bytes term at this size), so it is bandwidth, not per-operation overhead.";
    }
    f.summary += " " + resource.sentence;
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
    f.evidence.push_back({"ranks per core at G=" + std::to_string(last.groups), RanksPerCore(in, s, last), "x"});
    f.evidence.push_back({"CPU saturation at G=" + std::to_string(last.groups), last.saturation, "ratio"});
    switch (resource.kind) {
      case ResourceReading::kCpu:
        f.fix =
            "The groups share too few cores: fewer ranks per core (fewer groups per host, one thread per rank); a "
            "`--cpus` A/B confirms oversubscription itself.";
        break;
      case ResourceReading::kBandwidth:
        f.fix =
            "The groups split one bandwidth (per-group about peak/G): overlap fewer large collectives, fuse or "
            "shrink the buffers, or place groups on links and memory they do not share.";
        break;
      case ResourceReading::kCannotTell:
        f.fix =
            "Overlap fewer groups; to find what they share, sweep several sizes (--sizes: does the slope scale with "
            "bytes?) and core counts (--cpus: does it follow ranks per core?).";
        break;
    }
    ApplyAbs(std::move(abs), in.ConfirmCommand({{"concurrency", {"concurrent", "sequential"}}}), &f);
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeSharedBandwidthRule() { return std::make_unique<SharedBandwidthRule>(); }

}  // namespace diagnose
}  // namespace commbench
