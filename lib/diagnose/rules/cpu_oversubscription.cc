// CPU oversubscription / saturation: more rank threads than cores, so every added group adds time slices that
// all ranks wait for. Proven by the same points with more cores (--cpus) or pinned ranks (--pin).
#include <algorithm>
#include <cmath>

#include "lib/diagnose/rule.h"
#include "lib/diagnose/rules/common.h"
#include "lib/diagnose/rules/rules.h"

namespace commbench {
namespace diagnose {
namespace {

class CpuOversubscriptionRule : public Rule {
 public:
  std::string name() const override { return "cpu_oversubscription"; }
  std::string description() const override {
    return "rank threads outnumber cores: each added group adds CPU time slices every rank waits for";
  }

  std::optional<Finding> Evaluate(const AnalysisInput& in) const override {
    std::vector<Finding> out;
    for (int a : GrowingSeries(in, [&in](const SeriesData& s) { return Oversubscribed(in, s); })) {
      out.push_back(Build(in, a));
    }
    return PickBest(out);
  }

 private:
  static bool Oversubscribed(const AnalysisInput& in, const SeriesData& s) {
    const PointData& first = in.First(s);
    const PointData& last = in.Last(s);
    if (!last.has_cpu || last.threads_per_core <= 1.0) return false;
    bool ctx_grows = last.invol_ctx_per_iter > 0.1 && last.invol_ctx_per_iter >= 2 * first.invol_ctx_per_iter;
    return last.saturation >= 0.7 || ctx_grows;
  }

  static Finding Build(const AnalysisInput& in, int a) {
    const SeriesData& s = in.series[static_cast<size_t>(a)];
    const PointData& first = in.First(s);
    const PointData& last = in.Last(s);
    Finding f;
    f.rule = "cpu_oversubscription";
    f.cause = "CPU oversubscription";
    int g_over = 0;  // first group count where ranks outnumber cores
    for (size_t i = 0; i < s.points.size() && g_over == 0; ++i) {
      if (in.Point(s, i).threads_per_core > 1.0) g_over = in.Point(s, i).groups;
    }
    f.strength = 0.4;
    if (last.saturation >= 0.85) f.strength += 0.2;
    if (last.invol_ctx_per_iter > 0.1 && last.invol_ctx_per_iter >= 2 * first.invol_ctx_per_iter) f.strength += 0.2;
    bool onset = (s.fit.model == GrowthModel::kStep || s.fit.model == GrowthModel::kSaturation)
                     ? std::fabs(s.fit.change_point - g_over) <= 1
                     : g_over <= static_cast<int>(s.groups.size() > 1 ? s.groups[1] : s.groups[0]);
    if (onset) f.strength += 0.2;
    if (s.slope_vs_bytes == "bandwidth-bound") f.strength -= 0.1;  // scales with bytes: bandwidth is as likely
    f.summary = Describe(s) + ": time per op grows " + GrowthSentence(in, s) + "; from G=" + std::to_string(g_over) +
                " the ranks outnumber the " + Fmt(last.cores_available, 0) + " available cores (" +
                Fmt(last.threads_per_core) + " threads per core and CPU saturation " + Fmt(last.saturation, 2) +
                " at G=" + std::to_string(last.groups) + ").";
    AddGrowthEvidence(in, s, &f);
    f.evidence.push_back({"threads per core at G=" + std::to_string(last.groups), last.threads_per_core, "x"});
    f.evidence.push_back({"CPU saturation at G=" + std::to_string(last.groups), last.saturation, "ratio"});
    f.evidence.push_back({"ranks outnumber cores from", static_cast<double>(g_over), "G"});
    f.evidence.push_back({"involuntary context switches per iteration at G=" + std::to_string(first.groups),
                          first.invol_ctx_per_iter, "/iter"});
    f.evidence.push_back({"involuntary context switches per iteration at G=" + std::to_string(last.groups),
                          last.invol_ctx_per_iter, "/iter"});
    if (first.p50_us > 0 && last.p50_us > 0) {
      f.evidence.push_back({"p99/p50 at G=" + std::to_string(first.groups), first.p99_us / first.p50_us, "x"});
      f.evidence.push_back({"p99/p50 at G=" + std::to_string(last.groups), last.p99_us / last.p50_us, "x"});
    }
    f.fix = "Give every rank its own core: fewer ranks (groups) per host, one thread per rank (e.g. "
            "OMP_NUM_THREADS=1), and ranks pinned to distinct cores.";

    // A/B: the same points with more cores available, or with ranks pinned.
    double a_cores = last.cores_available;
    std::vector<int> partners = in.Partners(a, "cpus");
    std::optional<AbComparison> ab = in.BestAb(a, partners, [&in, a_cores](const SeriesData& b) {
      return in.Last(b).has_cpu && in.Last(b).cores_available > a_cores;
    });
    std::string b_label;
    if (ab) b_label = "--cpus " + in.series[static_cast<size_t>(ab->b)].axes.at("cpus");
    if (!ab || !ab->removed) {
      std::string a_pin = s.axes.count("pin") ? s.axes.at("pin") : "";
      if (a_pin.empty() || a_pin == "none") {
        std::optional<AbComparison> pin = in.BestAb(a, in.Partners(a, "pin"), [](const SeriesData& b) {
          return b.axes.count("pin") && b.axes.at("pin") != "none" && !b.axes.at("pin").empty();
        });
        if (pin && (!ab || pin->cut > ab->cut)) {
          ab = pin;
          b_label = "--pin " + in.series[static_cast<size_t>(pin->b)].axes.at("pin");
        }
      }
    }
    std::string all = in.affinity.empty() ? "0-" + std::to_string(std::max(1, static_cast<int>(in.cores_online) - 1))
                                          : in.affinity;
    std::string a_cpus = s.axes.count("cpus") ? s.axes.at("cpus") : "";
    std::vector<std::string> cpus = {a_cpus.empty() || a_cpus == all ? "0" : a_cpus, all};
    ApplyAb(in, ab, b_label, in.ConfirmCommand({{"cpus", cpus}}), &f);
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeCpuOversubscriptionRule() { return std::make_unique<CpuOversubscriptionRule>(); }

}  // namespace diagnose
}  // namespace commbench
