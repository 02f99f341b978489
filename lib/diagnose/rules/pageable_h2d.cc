// Pageable host-to-device copies (reference scenario B's other half): the CUDA runtime stages a copy from pageable
// memory through a pinned buffer of its own, with the host waiting, so the groups' copies queue behind one another
// whatever stream each uses. On an H200, 8 groups of a 1 MiB NCCL allreduce with a pageable 1 MiB copy grew from
// 119 to 742-954 us per op on either stream, against 45 to 109-212 us with pinned memory (reports/examples/gpu).
// Proven by the same points with pinned memory, equal on every other axis (the stream included).
#include "lib/core/ranges.h"
#include "lib/diagnose/rule.h"
#include "lib/diagnose/rules/common.h"
#include "lib/diagnose/rules/late_arrival.h"
#include "lib/diagnose/rules/rules.h"

namespace commbench {
namespace diagnose {
namespace {

bool CopiesFromPageable(const SeriesData& s) { return s.point.gpu_backend() && s.point.gpu.h2d == H2dKind::kPageable; }

class PageableH2dRule : public Rule {
 public:
  std::string name() const override { return "pageable_h2d"; }
  std::string description() const override {
    return "host-to-device copies from pageable memory are staged one at a time: the groups queue behind each "
           "other's copies on any stream";
  }

  std::optional<Finding> Evaluate(const AnalysisInput& in) const override {
    return BestOverGrowingSeries(in, CopiesFromPageable, Build);
  }

  AbFactor ab_factor() const override { return Factor(); }

 private:
  static AbFactor Factor() {
    AbFactor f;
    f.name = "the copy's host memory";
    f.axes = {"h2d"};
    f.removes = [](const AnalysisInput&, const SeriesData& a, const SeriesData& b, const std::string&) {
      return CopiesFromPageable(a) && b.point.gpu_backend() && b.point.gpu.h2d == H2dKind::kPinned;
    };
    return f;
  }

  static std::optional<Finding> Build(const AnalysisInput& in, int a) {
    const SeriesData& s = in.series[static_cast<size_t>(a)];
    // Queued copies slow the operation itself: a flat transfer under a growing skew is late arrival.
    if (GrowsByLateArrival(in, s)) return std::nullopt;
    const uint64_t copy = s.point.gpu.h2d_bytes > 0 ? s.point.gpu.h2d_bytes : s.point.bytes;  // 0: the message's
    Finding f;
    f.rule = "pageable_h2d";
    f.series = a;
    f.cause = "pageable host-to-device copies";
    f.strength = 0.6;
    f.summary = Describe(s) + ": each iteration copies " + FormatBytes(copy) +
                " from pageable host memory, which the CUDA runtime stages through its own pinned buffer with the "
                "host waiting; time per op grows " +
                GrowthSentence(in, s) + ".";
    AddGrowthEvidence(in, s, &f);
    f.fix =
        "Copy from pinned host memory (cudaHostAlloc or cudaHostRegister; in PyTorch a DataLoader with "
        "pin_memory=True and .to(device, non_blocking=True)), on a stream of its own, so the copies are "
        "asynchronous and the groups' copies and collectives can overlap.";
    ApplyAbs(in, a, Factor(), in.ConfirmCommand({{"h2d", {"pageable", "pinned"}}}), &f);
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> MakePageableH2dRule() { return std::make_unique<PageableH2dRule>(); }

}  // namespace diagnose
}  // namespace commbench
