// Transfer and arrival apart, and busy time (issue 52; the definitions are lib/result/point_result.h's Arrival and
// BusyTime): from the ranks' per-iteration times and arrivals (RankSamples::entry_ns), iteration by iteration.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "lib/result/point_result.h"
#include "lib/result/rank_samples.h"

namespace commbench {

// One group's series, its ranks' iterations aligned by index (as many as its shortest rank has).
struct GroupArrivals {
  result::SkewMethod method = result::SkewMethod::kClock;
  std::vector<double> transfer_us;  // per iteration: the least time any of its ranks spent inside the op
  std::vector<double> skew_us;      // per iteration: the last rank's arrival less the first's
  // The member that arrived last most often (an index into `members`; by the clock, or without one the member
  // with the shortest time inside: it waited for nobody), and the share of iterations it did; -1 with none.
  int last_member = -1;
  double last_share = 0;
};

// `members`: one group's ranks. The clock where every one recorded its arrivals and all share one host (one
// CLOCK_MONOTONIC); otherwise the clock-free estimate (longest time inside less the shortest: the ranks of a
// synchronous collective leave together, so the difference is how much later the last arrived).
GroupArrivals ComputeGroupArrivals(const std::vector<const result::RankSamples*>& members);

// The length of the union of half-open intervals [begin, end) (any order, overlapping or not), in their unit.
int64_t UnionLength(std::vector<std::pair<int64_t, int64_t>> intervals);

// The union, in seconds, of every rank's [arrival, arrival + its time] over its timed iterations: when any group
// was inside an operation. Nothing when some rank did not record its arrivals or the ranks ran on more than one
// host (their clocks are not one).
std::optional<double> BusyUnionS(const std::vector<result::RankSamples>& ranks);

}  // namespace commbench
