// Legacy-default-stream serialisation (reference scenario B): the input copy on the legacy default stream
// synchronises with every other stream, so the groups' kernels never overlap and time(G) ~ G * time(1) at
// every size. Proven by the same points on a dedicated non-blocking stream, equal on every other axis (the copy's
// memory included): a B that also changed the copy would prove the combination, not the stream.
#include <algorithm>
#include <cmath>

#include "lib/diagnose/rule.h"
#include "lib/diagnose/rules/common.h"
#include "lib/diagnose/rules/late_arrival.h"
#include "lib/diagnose/rules/rules.h"

namespace commbench {
namespace diagnose {
namespace {

bool OnLegacyStream(const SeriesData& s) {
  return s.point.gpu_backend() && s.point.gpu.stream == StreamKind::kLegacyDefault;
}

// time(G_last) / (G_last/G_first * time(G_first)): 1 when the groups run strictly one after another.
double SerialisationRatio(const AnalysisInput& in, const SeriesData& s) {
  const PointData& a = in.First(s);
  const PointData& b = in.Last(s);
  if (a.p50_us <= 0 || a.groups <= 0 || b.groups <= a.groups) return 0;
  return b.p50_us / (a.p50_us * b.groups / a.groups);
}

class LegacyDefaultStreamRule : public Rule {
 public:
  std::string name() const override { return "legacy_default_stream"; }
  std::string description() const override {
    return "work on the legacy default stream serialises the groups: time(G) ~ G x time(1) at every size";
  }

  std::optional<Finding> Evaluate(const AnalysisInput& in) const override {
    return BestOverGrowingSeries(in, OnLegacyStream, Build);
  }

  AbFactor ab_factor() const override { return Factor(); }

 private:
  static AbFactor Factor() {
    AbFactor f;
    f.name = "the stream";
    f.axes = {"stream"};
    f.removes = [](const AnalysisInput&, const SeriesData& a, const SeriesData& b, const std::string&) {
      return OnLegacyStream(a) && b.point.gpu_backend() && b.point.gpu.stream != StreamKind::kLegacyDefault;
    };
    return f;
  }

  static std::optional<Finding> Build(const AnalysisInput& in, int a) {
    const SeriesData& s = in.series[static_cast<size_t>(a)];
    // Serialised work slows the operation itself: a flat transfer under a growing skew is late arrival.
    if (GrowsByLateArrival(in, s)) return std::nullopt;
    double ratio = SerialisationRatio(in, s);
    int sizes = 0, serial_sizes = 0;
    for (int sib : in.SizeSiblings(a)) {
      ++sizes;
      double r = SerialisationRatio(in, in.series[static_cast<size_t>(sib)]);
      if (r >= 0.6 && r <= 1.4) ++serial_sizes;
    }
    Finding f;
    f.rule = "legacy_default_stream";
    f.series = a;
    f.cause = "legacy-default-stream serialisation";
    f.strength = 0.6 + (ratio >= 0.6 && ratio <= 1.4 ? 0.2 : 0) + (sizes > 1 && serial_sizes == sizes ? 0.1 : 0);
    f.summary = Describe(s) + ": time per op grows " + GrowthSentence(in, s) +
                "; at G=" + std::to_string(in.Last(s).groups) + " it is " + Fmt(ratio, 2) +
                "x what strictly one-after-another groups would take (1.0), at " + std::to_string(serial_sizes) +
                " of " + std::to_string(sizes) + " sizes.";
    AddGrowthEvidence(in, s, &f);
    f.evidence.push_back({"time(G) / (G x time(1)) at the largest G", ratio, "x"});
    f.evidence.push_back({"sizes that serialise", static_cast<double>(serial_sizes), "sizes"});
    f.fix =
        "Run the input copy and the collective on a dedicated non-blocking stream with pinned host memory and "
        "cudaMemcpyAsync, so the groups' work can overlap.";
    ApplyAbs(in, a, Factor(), in.ConfirmCommand({{"stream", {"legacy-default", "dedicated"}}}), &f);
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeLegacyDefaultStreamRule() { return std::make_unique<LegacyDefaultStreamRule>(); }

}  // namespace diagnose
}  // namespace commbench
