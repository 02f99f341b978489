// How each acceptance phase forms its groups over the cluster's hosts: all ranks as one group, one group per host,
// one group per host pair of a re-pairing round, or one group per block of a bisection level. A layout is what a launch
// needs: the group count, the group size, and which launcher rank runs each launch rank (Launch::order). Pure functions
// over the ranks' hosts.
#pragma once

#include <string>
#include <vector>

#include "lib/accept/bisect.h"
#include "lib/accept/localize.h"
#include "lib/core/status.h"

namespace commbench::accept {

// The cluster as the ranks found it: hosts in order of their lowest rank, each with its ranks in rank order.
struct Hosts {
  std::vector<std::string> names;       // address (or name) per host
  std::vector<std::vector<int>> ranks;  // launcher ranks per host
  int ranks_per_host() const { return ranks.empty() ? 0 : static_cast<int>(ranks.front().size()); }
};

// Groups ranks by their host (`host_of_rank[r]`, e.g. the transport address).
Hosts HostsOf(const std::vector<std::string>& host_of_rank);

struct Layout {
  std::string phase;  // the points' phase: "cluster", "host", "pairs-<round>", "bisect-<level>", "confirm-<round>"
  int groups = 1;
  int group_size = 1;
  std::vector<int> order;  // launch rank -> launcher rank
};

// Every rank in one group.
Layout ClusterLayout(const Hosts& hosts);
// One group per host: needs the same rank count on every host (InvalidArgument names the host that differs).
StatusOr<Layout> HostLayout(const Hosts& hosts);
// One group per pair of `round` (host indices), each group host a's ranks then host b's; a host that sits out
// the round is idle. `index` numbers the round (1-based) in the phase name.
StatusOr<Layout> PairLayout(const Hosts& hosts, const std::vector<Pair>& round, int index);
// One group per pair of a re-test round (confirm.h), named "confirm-<index>".
StatusOr<Layout> RetestLayout(const Hosts& hosts, const std::vector<Pair>& pairs, int index);
// One group per block of `level` (host indices, blocks of one size), each group its hosts' ranks in block order;
// hosts the level leaves over are idle.
StatusOr<Layout> BlockLayout(const Hosts& hosts, const BisectLevel& level);

}  // namespace commbench::accept
