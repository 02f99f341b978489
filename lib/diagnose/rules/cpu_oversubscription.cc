// CPU oversubscription / saturation: more rank threads than cores, so every added group adds time slices that
// all ranks wait for. Proven only by an A/B that changes ranks per core at the same group count: more cores
// (--cpus) or fewer rank threads per process (--ranks-per-process). Pinning leaves ranks per core as they are:
// it is the placement / wake-up A/B, never this one. Where the ranks' cgroup has a CPU quota below their cores (a
// container's CPU limit), the quota is what they share: no --cpus choice gives them more, so --cpus proves nothing.
#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "lib/core/cpu_quota.h"
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
    return BestOverGrowingSeries(
        in, [&in](const SeriesData& s) { return Oversubscribed(in, s); }, Build);
  }

  AbFactor ab_factor() const override { return Factor(); }

 private:
  // B has the cause removed when it gives each rank more of a core: more cores, or fewer ranks per process. Under
  // one binding CPU quota on both sides, how the ranks are spread over processes leaves each the same share.
  static AbFactor Factor() {
    AbFactor f;
    f.name = "ranks per core";
    f.axes = {"cpus", "ranks_per_process"};
    f.removes = [](const AnalysisInput& in, const SeriesData& a, const SeriesData& b, const std::string& axis) {
      if (axis == "cpus") return CoresForRanks(in, b) > CoresForRanks(in, a);
      const double quota = BindingCpuQuota(in, a);
      if (quota > 0 && BindingCpuQuota(in, b) == quota) return false;
      return std::atoi(b.axes.at(axis).c_str()) < std::atoi(a.axes.at(axis).c_str());
    };
    return f;
  }

  static bool Oversubscribed(const AnalysisInput& in, const SeriesData& s) {
    return RanksPerCore(in, s, in.Last(s)) > 1.0;
  }

  static Finding Build(const AnalysisInput& in, int a) {
    const SeriesData& s = in.series[static_cast<size_t>(a)];
    const PointData& first = in.First(s);
    const PointData& last = in.Last(s);
    Finding f;
    f.rule = "cpu_oversubscription";
    f.series = a;
    f.cause = "CPU oversubscription";
    double cores = CoresForRanks(in, s);
    double tpc = RanksPerCore(in, s, last);
    int g_over = 0;  // first group count where ranks outnumber cores
    for (size_t i = 0; i < s.points.size() && g_over == 0; ++i) {
      if (RanksPerCore(in, s, in.Point(s, i)) > 1.0) g_over = in.Point(s, i).groups;
    }
    // Ranks outnumbering cores is the precondition; a busy CPU, rising preemptions and growth that starts where
    // the ranks outnumber the cores make it the likely cause.
    f.strength = 0.3;
    if (last.saturation >= 0.85) f.strength += 0.2;
    if (last.invol_ctx_per_iter > 0.1 && last.invol_ctx_per_iter >= 2 * first.invol_ctx_per_iter) f.strength += 0.15;
    bool onset = (s.fit.model == GrowthModel::kStep || s.fit.model == GrowthModel::kSaturation)
                     ? s.fit.change_point >= g_over
                     : g_over <= static_cast<int>(s.groups.size() > 1 ? s.groups[1] : s.groups[0]);
    if (onset) f.strength += 0.2;
    if (s.slope_vs_bytes == result::SlopeKind::kBandwidthBound)
      f.strength -= 0.2;  // scales with bytes: bandwidth is as likely
    const double quota = BindingCpuQuota(in, s);
    if (quota > 0 && last.throttled_share >= kMostPeriodsThrottled) f.strength += 0.15;  // the quota ran out
    const std::string limit = quota > 0 ? "the " + FormatCpus(quota) + " their cgroup's CPU quota allows"
                                        : "the " + Fmt(cores, 0) + (cores == 1 ? " core" : " cores") + " they may use";
    f.summary = Describe(s) + ": time per op grows " + GrowthSentence(in, s) + "; from G=" + std::to_string(g_over) +
                " the ranks outnumber " + limit + " (" + Fmt(tpc) + " ranks per core and CPU saturation " +
                Fmt(last.saturation, 2) + " at G=" + std::to_string(last.groups) + ThrottledClause(last) + ").";
    AddGrowthEvidence(in, s, &f);
    f.evidence.push_back({"cores the ranks may use", cores, "cores"});
    if (quota > 0) {
      f.evidence.push_back({"CPU quota of the ranks' cgroup", quota, "CPUs"});
      if (first.throttled_share >= 0) {
        f.evidence.push_back({"share of quota periods throttled at G=" + std::to_string(first.groups),
                              100 * first.throttled_share, "%"});
      }
      if (last.throttled_share >= 0) {
        f.evidence.push_back(
            {"share of quota periods throttled at G=" + std::to_string(last.groups), 100 * last.throttled_share, "%"});
      }
    }
    f.evidence.push_back({"ranks per core at G=" + std::to_string(last.groups), tpc, "x"});
    f.evidence.push_back({"CPU saturation at G=" + std::to_string(last.groups), last.saturation, "ratio"});
    f.evidence.push_back({"ranks outnumber cores from", static_cast<double>(g_over), "G"});
    f.evidence.push_back({"involuntary context switches per iteration at G=" + std::to_string(first.groups),
                          first.invol_ctx_per_iter, "/iter"});
    f.evidence.push_back({"involuntary context switches per iteration at G=" + std::to_string(last.groups),
                          last.invol_ctx_per_iter, "/iter"});
    if (first.median_us > 0 && last.median_us > 0) {
      f.evidence.push_back({"p99/p50 at G=" + std::to_string(first.groups), first.p99_us / first.median_us, "x"});
      f.evidence.push_back({"p99/p50 at G=" + std::to_string(last.groups), last.p99_us / last.median_us, "x"});
    }
    f.fix = quota > 0 ? "Raise the cgroup's CPU limit (the container's or pod's CPU limit, the job's CPUs) to a "
                        "core per rank, or run fewer ranks (groups) under it: pinning and --cpus cannot give the "
                        "ranks more than the quota."
                      : "Give every rank its own core: fewer ranks (groups) per host, one thread per rank (e.g. "
                        "OMP_NUM_THREADS=1), and ranks pinned to distinct cores.";

    std::string all =
        in.affinity.empty() ? "0-" + std::to_string(std::max(1, static_cast<int>(in.cores_online) - 1)) : in.affinity;
    std::string a_cpus = s.axes.count("cpus") ? s.axes.at("cpus") : "";
    std::vector<std::string> cpus = {a_cpus.empty() || a_cpus == all ? "0" : a_cpus, all};
    const bool cpus_vary = CpusCanVaryShare(quota);
    ApplyAbs(in, a, Factor(), cpus_vary ? in.ConfirmCommand({{"cpus", cpus}}) : "", &f);
    if (!cpus_vary && f.status == FindingStatus::kSuspected) {
      f.summary += " No --cpus A/B can confirm it under this quota (one core and all cores get the same " +
                   FormatCpus(quota) + "): rerun under a larger CPU limit.";
    }
    return f;
  }

  static std::string ThrottledClause(const PointData& p) {
    if (p.cpu_quota <= 0 || p.throttled_share < 0) return "";
    return "; their cgroup ran out of quota in " + Fmt(100 * p.throttled_share, 0) + "% of its periods";
  }
};

}  // namespace

std::unique_ptr<Rule> MakeCpuOversubscriptionRule() { return std::make_unique<CpuOversubscriptionRule>(); }

}  // namespace diagnose
}  // namespace commbench
