// Defaults of a point's timed loop, in one place: the sweep's flags (SweepSpec) and the loop itself (LoopOptions)
// both start from them.
#pragma once

#include <cstdint>

namespace commbench {
namespace loop_defaults {

inline constexpr int64_t kWarmup = 5;
inline constexpr double kTimeBudgetS = 0.2;  // per point, timed loop
inline constexpr double kTargetCi = 0.05;    // relative half-width of the 95% CI that ends an adaptive loop
inline constexpr int64_t kMinIters = 20;
inline constexpr int64_t kMaxIters = 100000;
// Under a cgroup CPU quota below the cores, the ranks run at full speed until the quota runs out and then stall
// for the rest of the enforcement period: a timed loop spans at least kQuotaMinPeriods of them (0.5 s at the
// default 100 ms), and one that has not met its interval may run up to kQuotaPeriods (2 s).
inline constexpr double kQuotaMinPeriods = 5;
inline constexpr double kQuotaPeriods = 20;
// Share of the middle timed iterations checked. Each check perturbs the groups running beside it (LoopOptions).
inline constexpr double kCheckRate = 1.0 / 256;

}  // namespace loop_defaults
}  // namespace commbench
