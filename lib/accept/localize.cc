#include "lib/accept/localize.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <utility>

#include "lib/stats/summary.h"

namespace commbench::accept {
namespace {

double Median(std::vector<double> v) { return MedianOr(std::move(v), 0); }  // no pairs: 0 Gbit/s

Pair Ordered(int a, int b) { return a < b ? Pair{a, b} : Pair{b, a}; }

std::string Gbps(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3g GB/s", v);
  return buf;
}

std::string List(const std::vector<int>& hosts) {
  std::string s;
  for (int h : hosts) s += (s.empty() ? "" : ", ") + std::to_string(h);
  return s;
}

// One matching of `order` (hosts, shuffled) preferring partners not met yet: greedy over the shuffled order.
std::vector<Pair> Match(std::vector<int> order, std::set<Pair>* met) {
  std::vector<Pair> round;
  while (order.size() >= 2) {
    int a = order.front();
    size_t pick = 1;
    for (size_t j = 1; j < order.size(); ++j) {
      if (!met->count(Ordered(a, order[j]))) {
        pick = j;
        break;
      }
    }
    Pair p = Ordered(a, order[pick]);
    met->insert(p);
    round.push_back(p);
    order.erase(order.begin() + static_cast<long>(pick));
    order.erase(order.begin());
  }
  return round;
}

}  // namespace

std::vector<std::vector<Pair>> RepairingRounds(int hosts, int rounds, uint64_t seed) {
  std::vector<std::vector<Pair>> out;
  if (hosts < 2) return out;
  std::mt19937_64 rng(seed);
  std::set<Pair> met;
  for (int r = 0; r < rounds; ++r) {
    if (static_cast<int>(met.size()) == hosts * (hosts - 1) / 2) met.clear();  // all met: start over
    std::vector<int> order(static_cast<size_t>(hosts));
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    if (hosts % 2) {  // the one who sits out this round, in turn
      int out_host = r % hosts;
      order.erase(std::find(order.begin(), order.end(), out_host));
    }
    out.push_back(Match(order, &met));
  }
  return out;
}

Localization Localize(int hosts, const std::vector<PairResult>& results, const LocalizeOptions& options) {
  Localization loc;
  std::map<Pair, std::vector<double>> by_pair;
  for (const PairResult& r : results) by_pair[Ordered(r.pair.first, r.pair.second)].push_back(r.busbw_gbps);
  std::map<Pair, double> pair_gbps;
  std::vector<double> all;
  for (const auto& [pair, values] : by_pair) {
    pair_gbps[pair] = Median(values);
    all.push_back(pair_gbps[pair]);
  }
  loc.typical_gbps = Median(all);
  loc.threshold_gbps = options.fraction_of_typical * loc.typical_gbps;
  if (options.floor_gbps > 0) loc.threshold_gbps = std::max(loc.threshold_gbps, options.floor_gbps);
  auto fails = [&loc](double gbps) { return gbps < loc.threshold_gbps; };

  std::vector<std::vector<int>> failed_with(static_cast<size_t>(hosts));
  std::vector<std::vector<double>> host_values(static_cast<size_t>(hosts));
  for (int h = 0; h < hosts; ++h) loc.hosts.push_back({h, 0, 0, 0});
  for (const auto& [pair, gbps] : pair_gbps) {
    for (int h : {pair.first, pair.second}) {
      if (h < 0 || h >= hosts) continue;
      HostScore& s = loc.hosts[static_cast<size_t>(h)];
      ++s.partners;
      host_values[static_cast<size_t>(h)].push_back(gbps);
      if (fails(gbps)) {
        failed_with[static_cast<size_t>(h)].push_back(h == pair.first ? pair.second : pair.first);
      } else {
        ++s.passed;
      }
    }
  }
  for (int h = 0; h < hosts; ++h)
    loc.hosts[static_cast<size_t>(h)].median_gbps = Median(host_values[static_cast<size_t>(h)]);

  // Hosts that fail with most of their partners.
  std::set<int> bad_hosts;
  for (const HostScore& s : loc.hosts) {
    const auto& failed = failed_with[static_cast<size_t>(s.host)];
    const int n = static_cast<int>(failed.size());
    if (n < options.min_failed_partners || n < options.min_failed_share * s.partners) continue;
    bad_hosts.insert(s.host);
    Suspect x;
    x.kind = SuspectKind::kHost;
    x.host = s.host;
    x.gbps = s.median_gbps;
    x.severity = loc.typical_gbps > 0 ? std::clamp(1 - s.median_gbps / loc.typical_gbps, 0.0, 1.0) : 0;
    x.failed_with = failed;
    x.evidence = "host " + std::to_string(s.host) + " failed with " + std::to_string(n) + " of its " +
                 std::to_string(s.partners) + " partners (" + List(failed) + "): median " + Gbps(s.median_gbps) +
                 " against a typical pair's " + Gbps(loc.typical_gbps) + " (threshold " + Gbps(loc.threshold_gbps) +
                 ")";
    loc.suspects.push_back(x);
  }
  // Failing pairs that no slow host explains: the link between them.
  for (const auto& [pair, gbps] : pair_gbps) {
    if (!fails(gbps) || bad_hosts.count(pair.first) || bad_hosts.count(pair.second)) continue;
    Suspect x;
    x.kind = SuspectKind::kLink;
    x.link = pair;
    x.gbps = gbps;
    x.severity = loc.typical_gbps > 0 ? std::clamp(1 - gbps / loc.typical_gbps, 0.0, 1.0) : 0;
    const HostScore& a = loc.hosts[static_cast<size_t>(pair.first)];
    const HostScore& b = loc.hosts[static_cast<size_t>(pair.second)];
    x.evidence = "the link " + std::to_string(pair.first) + "-" + std::to_string(pair.second) + " moved " + Gbps(gbps) +
                 " against a typical pair's " + Gbps(loc.typical_gbps) + ", while host " + std::to_string(pair.first) +
                 " passed with " + std::to_string(a.passed) + " of " + std::to_string(a.partners) +
                 " partners and host " + std::to_string(pair.second) + " with " + std::to_string(b.passed) + " of " +
                 std::to_string(b.partners);
    loc.suspects.push_back(x);
  }
  std::stable_sort(loc.suspects.begin(), loc.suspects.end(),
                   [](const Suspect& x, const Suspect& y) { return x.severity > y.severity; });
  return loc;
}

}  // namespace commbench::accept
