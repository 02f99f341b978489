#include "lib/diagnose/caveats.h"

#include <algorithm>
#include <set>

#include "lib/core/cpu_quota.h"
#include "lib/diagnose/rules/common.h"
#include "lib/diagnose/rules/outside_load.h"
#include "lib/diagnose/shape.h"

namespace commbench {
namespace diagnose {
namespace {

// Points of series whose binding quota (BindingCpuQuota) the ranks ran out of in most periods.
std::string QuotaCaveat(const AnalysisInput& in) {
  std::set<int> groups;
  int throttled = 0;
  double quota = 0, most_throttled = 0, worst_se = 0;
  for (const SeriesData& s : in.series) {
    const double binding = BindingCpuQuota(in, s);
    if (binding <= 0) continue;
    for (size_t i = 0; i < s.points.size(); ++i) {
      const PointData& p = in.Point(s, i);
      if (p.throttled_share < kMostPeriodsThrottled) continue;
      ++throttled;
      groups.insert(p.groups);
      quota = TighterLimit(quota, binding);
      most_throttled = std::max(most_throttled, p.throttled_share);
      if (p.p50_us > 0) worst_se = std::max(worst_se, p.se_us / p.p50_us);
    }
  }
  if (throttled == 0) return "";
  std::string g;
  for (int n : groups) g += (g.empty() ? "G=" : ",") + std::to_string(n);
  return "CPU quota: the ranks' cgroup allows " + FormatCpus(quota) + " and ran out of it in up to " +
         Fmt(100 * most_throttled, 0) + "% of its periods during points " + g + " (" + std::to_string(throttled) +
         " of the " + std::to_string(in.points.size()) +
         " points). Each time, the ranks stall for the rest of a period, so a loop's cost varies from run to run "
         "(its standard error reached " +
         Fmt(100 * worst_se, 0) +
         "% of it here): rerun with --repeats 5, or under a larger CPU limit, to tell a growth from that noise.";
}

}  // namespace

std::vector<std::string> NoGrowthCaveats(const AnalysisInput& in) {
  std::vector<std::string> out;
  const std::string load = OutsideLoadOnPoints(in);
  if (!load.empty()) {
    out.push_back("Outside load: " + load +
                  ". It slows some points more than others and can hide a growth: rerun on a quiet host to tell.");
  }
  const std::string quota = QuotaCaveat(in);
  if (!quota.empty()) out.push_back(quota);
  for (std::string& shape : ShapeCaveats(in)) out.push_back(std::move(shape));
  const std::string slowed = SlowedBaselineCaveat(in);
  if (!slowed.empty()) out.push_back(slowed);
  return out;
}

}  // namespace diagnose
}  // namespace commbench
