// Wake-up latency floor: ranks block (sleep) in their waits and every step costs a scheduler wake-up, so time
// is a floor of wake-ups that grows as more threads share the run queues, while the CPU stays mostly idle.
// Signature: at least one voluntary context switch per rank per iteration, low CPU saturation, and a slope that
// does not scale with bytes. Proven by pinned ranks (--pin), which wake on a known core without migrating.
#include "lib/diagnose/rule.h"
#include "lib/diagnose/rules/common.h"
#include "lib/diagnose/rules/rules.h"

namespace commbench {
namespace diagnose {
namespace {

constexpr double kMinVolCtxPerRankIter = 0.5;
constexpr double kMaxSaturation = 0.7;  // above this the CPU is busy: that is oversubscription, not sleeping

class WakeupLatencyRule : public Rule {
 public:
  std::string name() const override { return "wakeup_latency"; }
  std::string description() const override {
    return "blocking waits: every step pays a scheduler wake-up while the CPU idles, a floor that grows with threads";
  }

  std::optional<Finding> Evaluate(const AnalysisInput& in) const override {
    auto blocked = [&in](const SeriesData& s) {
      const PointData& last = in.Last(s);
      return s.slope_vs_bytes != result::SlopeKind::kBandwidthBound && last.has_cpu &&
             last.saturation < kMaxSaturation && last.VolCtxPerRankIter() >= kMinVolCtxPerRankIter &&
             !PinnedBesideUnpinned(in, s);
    };
    return BestOverGrowingSeries(in, blocked, Build);
  }

  AbFactor ab_factor() const override { return Factor(); }

 private:
  // Unpinned A, pinned B: the same ranks per core, placed.
  static AbFactor Factor() {
    AbFactor f;
    f.name = "pinning";
    f.axes = {"pin"};
    f.removes = [](const AnalysisInput&, const SeriesData& a, const SeriesData& b, const std::string&) {
      return !Pinned(a) && Pinned(b);
    };
    return f;
  }

  static bool Pinned(const SeriesData& s) {
    auto it = s.axes.find("pin");
    return it != s.axes.end() && !it->second.empty() && it->second != "none";
  }

  // A pinned series whose unpinned twin is in the sweep is that twin's A/B, not a case of its own: judged on its
  // own it would ask for `--pin none,compact`, which the sweep already ran.
  static bool PinnedBesideUnpinned(const AnalysisInput& in, const SeriesData& s) {
    if (!Pinned(s)) return false;
    const int a = static_cast<int>(&s - in.series.data());
    for (int b : in.Partners(a, "pin")) {
      if (!Pinned(in.series[static_cast<size_t>(b)])) return true;
    }
    return false;
  }

  static Finding Build(const AnalysisInput& in, int a) {
    const SeriesData& s = in.series[static_cast<size_t>(a)];
    const PointData& first = in.First(s);
    const PointData& last = in.Last(s);
    Finding f;
    f.rule = "wakeup_latency";
    f.series = a;
    f.cause = "wake-up latency floor (blocking waits)";
    f.strength = 0.5 + (last.VolCtxPerRankIter() >= 2 ? 0.1 : 0) + (last.saturation < 0.4 ? 0.1 : 0);
    f.summary = Describe(s) + ": time per op grows " + GrowthSentence(in, s) + " while the CPU is mostly idle " +
                "(saturation " + Fmt(last.saturation, 2) + ") and each rank sleeps and is woken " +
                Fmt(last.VolCtxPerRankIter()) + " times per iteration.";
    AddGrowthEvidence(in, s, &f);
    f.evidence.push_back({"voluntary context switches per rank per iteration at G=" + std::to_string(first.groups),
                          first.VolCtxPerRankIter(), "/iter"});
    f.evidence.push_back({"voluntary context switches per rank per iteration at G=" + std::to_string(last.groups),
                          last.VolCtxPerRankIter(), "/iter"});
    f.evidence.push_back({"CPU saturation at G=" + std::to_string(last.groups), last.saturation, "ratio"});
    f.fix =
        "Poll briefly before blocking (busy-wait for small messages), pin ranks to cores, or keep cores out "
        "of deep idle states.";
    ApplyAbs(in, a, Factor(), in.ConfirmCommand({{"pin", {"none", "compact"}}}), &f);
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeWakeupLatencyRule() { return std::make_unique<WakeupLatencyRule>(); }

}  // namespace diagnose
}  // namespace commbench
