// Host synchronisation every iteration (GPU): cudaStreamSynchronize / cudaDeviceSynchronize per iteration
// multiplies the small-message floor and leaves the GPU idle while the host wakes up; with more groups the
// host threads queue behind each other. Proven by the same points syncing on an event, not at all, or in a
// CUDA graph.
#include "lib/diagnose/rule.h"
#include "lib/diagnose/rules/common.h"
#include "lib/diagnose/rules/rules.h"

namespace commbench {
namespace diagnose {
namespace {

bool HostSyncs(const SeriesData& s) {
  return s.point.gpu_backend() && (s.point.sync == Sync::kStream || s.point.sync == Sync::kDevice);
}

class HostSyncRule : public Rule {
 public:
  std::string name() const override { return "host_sync"; }
  std::string description() const override {
    return "the host synchronises with the GPU every iteration: the small-message floor multiplies";
  }

  std::optional<Finding> Evaluate(const AnalysisInput& in) const override {
    return BestOverGrowingSeries(in, HostSyncs, Build);
  }

  AbFactor ab_factor() const override { return Factor(); }

 private:
  // How often the host waits: per iteration on an event or not at all, or the loop captured in a CUDA graph.
  static AbFactor Factor() {
    AbFactor f;
    f.name = "host synchronisation";
    f.axes = {"sync", "graph"};
    f.removes = [](const AnalysisInput&, const SeriesData& a, const SeriesData& b, const std::string& axis) {
      auto graph = [](const SeriesData& s) { return s.point.gpu_backend() && s.point.gpu.graph; };
      if (axis == "graph") return !graph(a) && graph(b);
      return HostSyncs(a) && (b.point.sync == Sync::kEvent || b.point.sync == Sync::kNone);
    };
    return f;
  }

  static Finding Build(const AnalysisInput& in, int a) {
    const SeriesData& s = in.series[static_cast<size_t>(a)];
    const std::string sync(Name(s.point.sync));
    Finding f;
    f.rule = "host_sync";
    f.series = a;
    f.cause = "host sync every iteration";
    f.strength = 0.6;
    f.summary = Describe(s) + ": with --sync " + sync +
                " the host waits for the GPU every iteration; time per op "
                "grows " +
                GrowthSentence(in, s) + ".";
    AddGrowthEvidence(in, s, &f);
    f.fix =
        "Do not synchronise the host every iteration: wait on an event the next iteration consumes (or every N "
        "iterations), or capture the loop in a CUDA graph.";
    ApplyAbs(in, a, Factor(), in.ConfirmCommand({{"sync", {sync, "event", "none"}}}), &f);
    if (!f.ab.empty()) {
      // The decisive A/B's floor: how much the per-iteration sync multiplies the smallest time.
      const std::string& first_b = f.ab_points.empty() ? f.ab.front().points.front() : f.ab_points.front();
      for (const PointData& p : in.points) {
        if (p.id == first_b && p.p50_us > 0) {
          f.evidence.push_back({"floor multiplied (A/B p50 at the first G)", in.First(s).p50_us / p.p50_us, "x"});
          break;
        }
      }
    }
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeHostSyncRule() { return std::make_unique<HostSyncRule>(); }

}  // namespace diagnose
}  // namespace commbench
