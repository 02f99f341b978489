#include "lib/app/ab_rounds.h"

#include <algorithm>
#include <cmath>

namespace commbench::app {
namespace {

// The same ranks, processes, pinning and cores: what one launch's points must share.
bool SameLaunch(const Launch& a, const Launch& b) {
  return a.world == b.world && a.ranks_per_process == b.ranks_per_process && a.pin == b.pin && a.cpus == b.cpus &&
         a.order == b.order;
}

}  // namespace

Plan AlternatingRounds(const Plan& plan, int rounds) {
  Plan backward = plan;
  std::reverse(backward.launches.begin(), backward.launches.end());
  for (Launch& l : backward.launches) std::reverse(l.points.begin(), l.points.end());
  Plan out;
  out.skipped = plan.skipped;
  for (int round = 0; round < rounds; ++round) {
    for (const Launch& l : (round % 2 == 0 ? plan : backward).launches) {
      if (!out.launches.empty() && SameLaunch(out.launches.back(), l)) {
        std::vector<Point>& points = out.launches.back().points;
        points.insert(points.end(), l.points.begin(), l.points.end());
      } else {
        out.launches.push_back(l);
      }
    }
  }
  return out;
}

SweepSpec RoundSpec(SweepSpec spec, double share) {
  if (!(share > 0 && share < 1)) return spec;
  auto part = [share](int64_t n) {
    return std::max<int64_t>(2, static_cast<int64_t>(std::ceil(static_cast<double>(n) * share)));
  };
  auto budget = [share](double s) { return std::max(s * share, std::min(s, kMinRoundBudgetS)); };
  spec.time_budget_s = budget(spec.time_budget_s);
  for (auto& [bytes, seconds] : spec.time_budget_above) seconds = budget(seconds);
  spec.min_iters = part(spec.min_iters);
  spec.warmup = std::min(spec.warmup, part(spec.warmup));  // both sides warm alike
  return spec;
}

}  // namespace commbench::app
