// How an interleaved A/B's rounds run (FollowUp::pairs): the plan forward, then backward, and so on, as one
// sequence of launches, each round's timed loops a share of a sweep point's.
#pragma once

#include "lib/model/point.h"
#include "lib/model/spec.h"

namespace commbench::app {

// `rounds` rounds of `plan`: even rounds run it forward, odd ones backward (its launches and the points within each
// reversed), so A B becomes B A. Where a round ends with the launch the next one begins with (the turn: ... B | B
// ...), the two run as one launch, the points of both rounds in order: the same measurements, one spawn fewer.
Plan AlternatingRounds(const Plan& plan, int rounds);

// The spec one round runs under: `share` (0 to 1) of the time budget, the minimum iterations and the warm-up (at
// least 2 of each count, or no warm-up when --warmup 0), but a budget of at least kMinRoundBudgetS (or the sweep's,
// when less): a round timed in fewer milliseconds than a few scheduler periods lets one burst of outside load decide
// it. A fixed --iters stays.
inline constexpr double kMinRoundBudgetS = 0.05;
SweepSpec RoundSpec(SweepSpec spec, double share);

}  // namespace commbench::app
