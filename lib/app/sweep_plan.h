// A sweep's policy apart from its command line: the fault injections checked against the plan's worlds, and
// --explain's second phase (the A/B points of each cause the first phase suspects, for the series it names).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/app/pipeline.h"
#include "lib/backend/backend.h"
#include "lib/core/cpu_quota.h"
#include "lib/core/status.h"
#include "lib/model/point.h"
#include "lib/model/spec.h"
#include "lib/result/result_file.h"

namespace commbench::app {

// One line for the console before a sweep whose ranks run under a cgroup CPU quota below their `cores`: they share
// that quota, not the cores, and each timed loop spans loop_defaults::kQuotaMinPeriods to kQuotaPeriods of its
// periods. "" otherwise.
std::string CpuQuotaNote(const CpuQuota& quota, size_t cores);

// A fault aimed at a rank no launch of the sweep has would silently inject nothing (the test would pass for the
// wrong reason): InvalidArgument naming the flag and the ranks accepted.
Status CheckInjectedRanks(const SweepSpec& spec, const Plan& plan);

// --explain's second phase, and what the console says of it: one line per suspected cause (its A/B, or why it
// has none), or that nothing is suspected, and a warning when the A/B points cannot be planned. The lines come
// without the "commbench: " prefix.
struct ExplainFollowUp {
  FollowUp follow_up;  // no launches: nothing to add
  std::vector<std::string> notes;
};

// An interleaved A/B runs its two sides at the ends of the suspect's group counts (the cut compares growth, which
// the ends carry), kAbRounds times each (or --repeats times, when more), each round's time budget a kAbRounds-th of
// a sweep point's: --explain's cost is launches more than loops (bench/README).
inline constexpr size_t kAbGroupCounts = 2;
inline constexpr int64_t kAbRounds = 3;

// From the first phase's result and its plan: for each suspected finding, the A/B that varies its cause's
// factor alone (lib/sweep/explain.h), over the cores `affinity` (e.g. "0-1") names, as pairs of launches that
// alternate (A B, B A, ...): the suspect's own points against the B side's at the same group counts, also where
// the sweep measured the B side already (its own order compared two moments, not two settings). A point two
// A/Bs share runs once a round.
ExplainFollowUp PlanExplainAbs(const result::ResultFile& first, const Plan& planned, const SweepSpec& spec,
                               const std::vector<BackendDescription>& backends, const std::string& affinity);

}  // namespace commbench::app
