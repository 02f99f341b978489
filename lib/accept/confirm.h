// The re-test of suspects before they fail the cluster (Profile::confirm): which hosts each re-test round pairs. A
// round measures every suspect it re-tests (a host beside a known-good partner, a link between its two ends) and a
// control pair of known-good hosts at the same moment, so that what the round's moment does to one it does to the
// other; partners and control rotate over the rounds. Pure.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "lib/accept/localize.h"

namespace commbench::accept {

// One suspect to re-test, by host index: a host (or a rank on it), or a link (`peer` its other end).
struct RetestTarget {
  int host = -1;
  int peer = -1;  // -1: not a link; the re-test gives the host a known-good partner
};

struct RetestRound {
  std::vector<Pair> pairs;          // the re-tested targets' pairs, the control pair last
  std::vector<int> target_of_pair;  // per pair: its index into the targets; -1 for the control
};

struct RetestPlan {
  std::vector<RetestRound> rounds;  // in run order
  // Per target: why it is not re-tested ("" where it is): too few known-good hosts, or the launches ran out.
  std::vector<std::string> why_not;
};

// `rounds` re-tests of every target over `hosts` hosts. Known-good hosts are those no target names and not in
// `not_good` (suspects re-tested earlier); a round takes two of them for its control and one more per host target
// as its partner, and re-tests as many targets as that and their hosts (no host in two pairs of a round) allow; the
// rest go into further rounds, at most `max_rounds` in all. Which known-good hosts serve is drawn per round from
// `seed`.
RetestPlan PlanRetests(int hosts, const std::vector<RetestTarget>& targets, int rounds, int max_rounds, uint64_t seed,
                       const std::set<int>& not_good = {});

}  // namespace commbench::accept
