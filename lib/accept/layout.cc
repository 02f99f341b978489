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
  RETURN_IF_ERROR(SameRanksPerHost(hosts));
  Layout l;
  l.phase = "pairs-" + std::to_string(index);
  l.groups = static_cast<int>(round.size());
  l.group_size = 2 * hosts.ranks_per_host();
  const int n = static_cast<int>(hosts.ranks.size());
  for (const Pair& p : round) {
    if (p.first < 0 || p.second < 0 || p.first >= n || p.second >= n || p.first == p.second) {
      return InvalidArgument("pair (" + std::to_string(p.first) + ", " + std::to_string(p.second) +
                             ") is not two of the " + std::to_string(n) + " hosts");
    }
    for (int h : {p.first, p.second}) {
      const auto& ranks = hosts.ranks[static_cast<size_t>(h)];
      l.order.insert(l.order.end(), ranks.begin(), ranks.end());
    }
  }
  return l;
}

}  // namespace commbench::accept
