#include "lib/accept/layout.h"

#include <map>

namespace commbench::accept {
namespace {

Status SameRanksPerHost(const Hosts& hosts) {
  for (size_t h = 1; h < hosts.ranks.size(); ++h) {
    if (hosts.ranks[h].size() != hosts.ranks[0].size()) {
      return InvalidArgument("host " + hosts.names[h] + " has " + std::to_string(hosts.ranks[h].size()) +
                             " ranks and host " + hosts.names[0] + " has " + std::to_string(hosts.ranks[0].size()) +
                             " (acceptance needs the same number of ranks on every host)");
    }
  }
  return OkStatus();
}

// One group per list of host indices, all of one length (the launcher's groups are of one size), each group its
// hosts' ranks in list order; `phase` names the points. Hosts in no list are idle.
StatusOr<Layout> GroupsOfHosts(const Hosts& hosts, const std::vector<std::vector<int>>& groups, std::string phase) {
  RETURN_IF_ERROR(SameRanksPerHost(hosts));
  Layout l;
  l.phase = std::move(phase);
  l.groups = static_cast<int>(groups.size());
  l.group_size = groups.empty() ? 0 : static_cast<int>(groups.front().size()) * hosts.ranks_per_host();
  const int n = static_cast<int>(hosts.ranks.size());
  std::vector<bool> used(hosts.ranks.size(), false);
  for (const std::vector<int>& g : groups) {
    bool ok = g.size() == groups.front().size();
    std::string listed;
    for (int h : g) {
      listed += (listed.empty() ? "" : ", ") + std::to_string(h);
      const bool fresh = h >= 0 && h < n && !used[static_cast<size_t>(h)];
      if (fresh) used[static_cast<size_t>(h)] = true;
      ok = ok && fresh;
    }
    if (!ok) {
      return InvalidArgument("group (" + listed + ") is not " + std::to_string(groups.front().size()) +
                             " distinct hosts of the " + std::to_string(n) + " that no other group holds");
    }
    for (int h : g) {
      const auto& ranks = hosts.ranks[static_cast<size_t>(h)];
      l.order.insert(l.order.end(), ranks.begin(), ranks.end());
    }
  }
  return l;
}

}  // namespace

Hosts HostsOf(const std::vector<std::string>& host_of_rank) {
  Hosts out;
  std::map<std::string, size_t> index;
  for (size_t r = 0; r < host_of_rank.size(); ++r) {
    auto [it, added] = index.emplace(host_of_rank[r], out.names.size());
    if (added) {
      out.names.push_back(host_of_rank[r]);
      out.ranks.emplace_back();
    }
    out.ranks[it->second].push_back(static_cast<int>(r));
  }
  return out;
}

Layout ClusterLayout(const Hosts& hosts) {
  Layout l;
  l.phase = "cluster";
  for (const auto& ranks : hosts.ranks) l.order.insert(l.order.end(), ranks.begin(), ranks.end());
  l.groups = 1;
  l.group_size = static_cast<int>(l.order.size());
  return l;
}

StatusOr<Layout> HostLayout(const Hosts& hosts) {
  RETURN_IF_ERROR(SameRanksPerHost(hosts));
  Layout l = ClusterLayout(hosts);
  l.phase = "host";
  l.groups = static_cast<int>(hosts.ranks.size());
  l.group_size = hosts.ranks_per_host();
  return l;
}

StatusOr<Layout> PairLayout(const Hosts& hosts, const std::vector<Pair>& round, int index) {
  std::vector<std::vector<int>> groups;
  for (const Pair& p : round) groups.push_back({p.first, p.second});
  return GroupsOfHosts(hosts, groups, "pairs-" + std::to_string(index));
}

StatusOr<Layout> RetestLayout(const Hosts& hosts, const std::vector<Pair>& pairs, int index) {
  std::vector<std::vector<int>> groups;
  for (const Pair& p : pairs) groups.push_back({p.first, p.second});
  return GroupsOfHosts(hosts, groups, "confirm-" + std::to_string(index));
}

StatusOr<Layout> BlockLayout(const Hosts& hosts, const BisectLevel& level) {
  return GroupsOfHosts(hosts, level.blocks, "bisect-" + std::to_string(level.level));
}

}  // namespace commbench::accept
