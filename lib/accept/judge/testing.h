// Test support for the acceptance judgement: two profiles and a synthetic cluster whose phases the judges read
// (a slow host, a slow link or a slow rank planted on demand), and lookups into a report.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "lib/accept/verdict.h"

namespace commbench::accept::judge_testing {

inline constexpr uint64_t kSmall = 4 << 10, kLarge = 4 << 20;

inline const char kProfile[] =
    "backend: gloo\n"
    "ops: allreduce\n"
    "sizes: [4K, 4M]\n"
    "floors:\n"
    "  - {phase: pairs, size: 4M, fraction: 0.5, fraction_of: best_pair}\n"
    "  - {phase: pairs, size: 4M, busbw_gbps: 0.3, source: test}\n"
    "  - {phase: cluster, size: 4M, busbw_gbps: 0.5}\n"
    "  - {phase: host, size: 4M, fraction: 0.5, fraction_of: best_host}\n"
    "ceilings:\n"
    "  - {size: 4K, p50_us: 500}\n"
    "  - {p99_over_p50: 3}\n"
    "repeats: 1\n"
    "time_budget_s: 100\n"
    "phases: [cluster, host, pairs]\n"
    "pairs: {rounds: 7, pair_fraction: 0.5, slow_rank_factor: 2}\n"
    "preflight: {hosts: 8, ranks_per_host: 2, interface: eth0}\n";

// The same cluster localised by bisection instead of pairs.
inline const char kBisectProfile[] =
    "backend: gloo\n"
    "ops: allreduce\n"
    "sizes: [4K, 4M]\n"
    "floors:\n"
    "  - {phase: bisection, size: 4M, busbw_gbps: 0.3, source: test}\n"
    "  - {phase: cluster, size: 4M, busbw_gbps: 0.5}\n"
    "  - {phase: host, size: 4M, fraction: 0.5, fraction_of: best_host}\n"
    "ceilings:\n"
    "  - {size: 4K, p50_us: 500}\n"
    "  - {p99_over_p50: 3}\n"
    "repeats: 1\n"
    "time_budget_s: 100\n"
    "phases: [cluster, host, bisection]\n"
    "pairs: {slow_rank_factor: 2}\n"
    "bisection: {block_fraction: 0.5}\n"
    "preflight: {hosts: 8, ranks_per_host: 2, interface: eth0}\n";

// One host, two ranks, as configs/acceptance/local-smoke.yaml.
inline const char kOneHostProfile[] =
    "backend: gloo\n"
    "ops: allreduce\n"
    "sizes: [4K, 4M]\n"
    "floors:\n"
    "  - {size: 4M, busbw_gbps: 0.02}\n"
    "ceilings:\n"
    "  - {size: 4K, p50_us: 20000}\n"
    "  - {p99_over_p50: 50}\n"
    "repeats: 2\n"
    "time_budget_s: 50\n"
    "phases: [cluster, host]\n"
    "preflight: {hosts: 1, ranks_per_host: 2}\n";

inline Profile TestProfile(const char* text = kProfile) {
  auto p = ParseProfile(text, "test.yaml", {"gloo"});
  EXPECT_TRUE(p.ok()) << p.status().message();
  return *p;
}

inline std::string Address(int h) { return "10.77.0." + std::to_string(h + 1); }

// A synthetic cluster: busbw over the network 1 GB/s per healthy host and link, 4 GB/s inside a host, 30 us
// latency; a slow host's network, a slow link or a slow rank scale it; multiplicative noise on every time.
struct Cluster {
  int hosts = 8, ranks_per_host = 2;
  std::map<int, double> host_net;  // factor on a host's network bandwidth
  std::map<Pair, double> link;     // factor on one link
  int slow_rank = -1;              // a process rank (host * ranks_per_host + k)
  double slow_factor = 1;
  bool slow_rank_waits_for_cpu = false;  // its extra time is recorded as its run-queue wait (a CPU-starved rank)
  // A straggler: this process rank adds `straggler_us` to each of its iterations, its peers wait for it (their
  // medians rise as much as its own), but only its fastest iteration (time_us.min) is slow.
  int straggler = -1;
  double straggler_us = 0;
  std::map<int, double> host_latency_us;   // latency a host adds to every op it takes part in over the network
  std::map<Pair, double> link_latency_us;  // latency one link adds
  // A pair whose ranks wait this long per op for a CPU (another process on their cores): the wait adds to its
  // time and is recorded as its ranks' run-queue wait. The other ranks record none.
  std::map<Pair, double> pair_cpu_wait_us;
  // A host whose ranks wait this long per op for a CPU (a CPU quota, throttling): in every point it takes part in,
  // the wait adds to its group's time and is recorded as its own ranks' run-queue wait.
  std::map<int, double> host_cpu_wait_us;
  // As real launches number ranks: each point's ranks in the order of its groups (so a process has a different
  // rank in each phase), its process rank recorded beside. Off: rank = process rank, none recorded (older files).
  bool launch_order = false;
  // A host whose network runs at this factor in spells (a flapping link): six points (three rounds of 4K and 4M)
  // slowed, six not, counted over every point this cluster measures.
  std::map<int, double> host_net_flapping;
  // A host whose cap comes and goes within each point: its network points' p99 times this factor at the large
  // size, their medians untouched.
  std::map<int, double> host_net_tail;
  // A host capped in spells: its p99 times this factor in every third large network point it takes part in.
  std::map<int, double> host_net_spells;
  std::map<int, int> spell_points;  // large network points each spelled host took part in so far
  // Any large network point's p99 tripled with this probability, whoever is in it (a healthy but noisy cluster).
  double tail_bursts = 0;
  int pair_repeats = 1;  // points of each size per pairs round (Profile::repeats)
  int points_made = 0;
  double noise = 0.03;
  std::mt19937_64 rng{1};

  static constexpr int64_t kIters = 1000;  // timed iterations of every point

  double Noise() { return std::exp(std::normal_distribution<double>(0, noise)(rng)); }
  double Net(int h) {
    double f = host_net.count(h) ? host_net[h] : 1.0;
    if (host_net_flapping.count(h) && (points_made / 6) % 2 == 0) f *= host_net_flapping[h];
    return f;
  }
  double Link(int a, int b) {
    Pair p{std::min(a, b), std::max(a, b)};
    return link.count(p) ? link[p] : 1.0;
  }

  // One point of `groups` (each a list of hosts whose ranks it holds).
  result::PointResult Point(uint64_t bytes, const std::vector<std::vector<int>>& groups) {
    ++points_made;
    result::PointResult p;
    p.iters = kIters;
    p.point.op = Collective::kAllreduce;
    p.point.bytes = bytes;
    p.point.groups = static_cast<int>(groups.size());
    p.point.group_size = static_cast<int>(groups[0].size()) * ranks_per_host;
    const int n = p.point.group_size;
    double slowest = 0;
    int position = 0;
    auto process = [](const result::RankTime& r) { return r.process_rank >= 0 ? r.process_rank : r.rank; };
    for (size_t g = 0; g < groups.size(); ++g) {
      double gbps = 4;
      if (groups[g].size() > 1) {
        gbps = 1;
        for (int a : groups[g]) {
          gbps = std::min(gbps, Net(a));
          for (int b : groups[g]) {
            if (a != b) gbps = std::min(gbps, Link(a, b));
          }
        }
      }
      double latency = 30;
      for (int a : groups[g]) {
        if (groups[g].size() < 2) break;  // inside a host: no network
        latency += host_latency_us.count(a) ? host_latency_us[a] : 0;
        for (int b : groups[g]) {
          if (a < b && link_latency_us.count({a, b})) latency += link_latency_us[{a, b}];
        }
      }
      double cpu_wait = 0;
      if (groups[g].size() == 2) {
        const Pair pr{std::min(groups[g][0], groups[g][1]), std::max(groups[g][0], groups[g][1])};
        if (pair_cpu_wait_us.count(pr)) cpu_wait = pair_cpu_wait_us[pr];
      }
      double spell = 1;
      if (bytes >= kLarge && groups[g].size() > 1) {
        for (int h : groups[g]) {
          if (host_net_spells.count(h) && spell_points[h]++ % 3 == 0) spell *= host_net_spells[h];
        }
        if (tail_bursts > 0 && std::uniform_real_distribution<double>(0, 1)(rng) < tail_bursts) spell *= 3;
      }
      auto host_wait = [&](int h) { return host_cpu_wait_us.count(h) ? host_cpu_wait_us[h] : 0.0; };
      double group_host_wait = 0;
      for (int h : groups[g]) group_host_wait = std::max(group_host_wait, host_wait(h));
      const double t =
          latency + cpu_wait + group_host_wait + static_cast<double>(bytes) * 2.0 * (n - 1) / n / (gbps * 1e3);
      double group_p50 = 0;
      int group_rank = 0;
      for (int h : groups[g]) {
        for (int k = 0; k < ranks_per_host; ++k) {
          result::RankTime r;
          r.rank = launch_order ? position : h * ranks_per_host + k;
          r.process_rank = launch_order ? h * ranks_per_host + k : -1;
          ++position;
          r.group = static_cast<int>(g);
          r.group_rank = group_rank++;
          r.host = "h" + std::to_string(h);
          r.address = Address(h);
          r.pid = 4000 + h * ranks_per_host + k;
          r.time_us.p50 = t * Noise();
          r.time_us.p99 = 1.4 * r.time_us.p50 * spell;
          if (bytes >= kLarge && groups[g].size() > 1) {
            for (int other : groups[g]) {
              if (host_net_tail.count(other)) r.time_us.p99 *= host_net_tail[other];
            }
          }
          r.time_us.min = 0.9 * r.time_us.p50;
          r.runqueue_wait_s = (cpu_wait + host_wait(h)) * kIters / 1e6;
          p.per_rank.push_back(r);
        }
      }
      bool has_slow = false, has_straggler = false;
      for (const result::RankTime& r : p.per_rank) {
        has_slow |= r.group == static_cast<int>(g) && process(r) == slow_rank;
        has_straggler |= r.group == static_cast<int>(g) && process(r) == straggler;
      }
      for (result::RankTime& r : p.per_rank) {
        if (r.group != static_cast<int>(g)) continue;
        if (has_straggler) {
          r.time_us.p50 += straggler_us;
          r.time_us.p99 += straggler_us;
          if (process(r) == straggler) r.time_us.min += straggler_us;
        }
        if (process(r) == slow_rank) {
          if (slow_rank_waits_for_cpu) r.runqueue_wait_s += (slow_factor - 1) * r.time_us.p50 * kIters / 1e6;
          r.time_us.p50 *= slow_factor;
          r.time_us.p99 *= slow_factor;
        } else if (has_slow) {
          r.time_us.p50 *= 1.2;  // its peers wait for it a little
          r.time_us.p99 *= 1.2;
        }
        group_p50 = std::max(group_p50, r.time_us.p50);
      }
      result::GroupTime gt;
      gt.group = static_cast<int>(g);
      gt.p50_us = group_p50;
      gt.mean_us = group_p50;
      for (int h : groups[g]) gt.hosts.push_back(Address(h));
      p.per_group.push_back(gt);
      if (group_p50 > slowest) {
        slowest = group_p50;
        p.headline_group = static_cast<int>(g);
      }
    }
    p.time_us.p50 = slowest;
    p.time_us.p99 = 1.4 * slowest;
    p.busbw_gbps = static_cast<double>(bytes) / (slowest * 1e3) * 2.0 * (n - 1) / n;
    double slowest_rank = 0;
    for (const result::RankTime& r : p.per_rank) {
      if (r.time_us.p50 > slowest_rank) {
        slowest_rank = r.time_us.p50;
        p.skew.slowest_rank = r.rank;
      }
    }
    p.skew.start_skew_us = slow_rank >= 0 ? 1000 : 20;
    return p;
  }

  std::vector<PhaseResult> Phases(int rounds) {
    std::vector<PhaseResult> out;
    std::vector<int> all;
    for (int h = 0; h < hosts; ++h) all.push_back(h);
    PhaseResult cluster{Phase::kCluster, 0, true, "", {}};
    PhaseResult host{Phase::kHost, 0, true, "", {}};
    std::vector<std::vector<int>> singles;
    for (int h = 0; h < hosts; ++h) singles.push_back({h});
    for (uint64_t bytes : {kSmall, kLarge}) {
      cluster.points.push_back(Point(bytes, {all}));
      host.points.push_back(Point(bytes, singles));
    }
    out.push_back(cluster);
    out.push_back(host);
    int r = 0;
    for (const auto& round : RepairingRounds(hosts, rounds, 7)) {
      PhaseResult pairs{Phase::kPairs, ++r, true, "", {}};
      std::vector<std::vector<int>> groups;
      for (const Pair& p : round) groups.push_back({p.first, p.second});
      for (int k = 0; k < pair_repeats; ++k) {
        for (uint64_t bytes : {kSmall, kLarge}) pairs.points.push_back(Point(bytes, groups));
      }
      out.push_back(pairs);
    }
    return out;
  }

  // The bisection levels, the first `levels` to run (all: -1), each one launch of its blocks.
  std::vector<PhaseResult> Bisection(int levels = -1) {
    std::vector<PhaseResult> out;
    for (const BisectLevel& l : BisectionLevels(hosts)) {
      if (levels >= 0 && static_cast<int>(out.size()) == levels) break;
      PhaseResult level{Phase::kBisection, l.level, true, "", {}};
      for (uint64_t bytes : {kSmall, kLarge}) level.points.push_back(Point(bytes, l.blocks));
      out.push_back(level);
    }
    return out;
  }

  // Cluster, host and bisection phases under kBisectProfile.
  AcceptanceInput BisectInput(int levels = -1) {
    AcceptanceInput in = Input(0);
    in.profile = TestProfile(kBisectProfile);
    in.phases.resize(2);
    for (PhaseResult& level : Bisection(levels)) in.phases.push_back(level);
    return in;
  }

  // The re-test rounds of the suspects `in` names (Profile::confirm), planned as the command plans them and measured
  // on this cluster as it is now.
  std::vector<PhaseResult> Retests(const AcceptanceInput& in) {
    const AcceptanceReport before = Judge(in);
    std::vector<PhaseResult> out;
    int r = 0;
    for (const RetestRound& round : PlanRetestsFor(before.suspects, in.profile, in.expected_hosts).rounds) {
      PhaseResult p{Phase::kConfirm, ++r, true, "", {}};
      std::vector<std::vector<int>> groups;
      for (const Pair& pr : round.pairs) groups.push_back({pr.first, pr.second});
      for (uint64_t bytes : {kSmall, kLarge}) p.points.push_back(Point(bytes, groups));
      out.push_back(p);
    }
    return out;
  }

  // `in` with its suspects' re-tests added.
  AcceptanceInput Retested(AcceptanceInput in) {
    for (PhaseResult& p : Retests(in)) in.phases.push_back(std::move(p));
    return in;
  }

  AcceptanceInput Input(int rounds = 7) {
    AcceptanceInput in;
    in.profile = TestProfile();
    for (int h = 0; h < hosts; ++h) {
      in.expected_hosts.push_back(Address(h));
      HostFound f;
      f.host = Address(h);
      f.ranks = {h * ranks_per_host, h * ranks_per_host + 1};
      f.interfaces = {"lo", "eth0"};
      in.found.push_back(f);
    }
    in.phases = Phases(rounds);
    return in;
  }
};

inline std::string Failed(const AcceptanceReport& r) {
  std::string s;
  for (const Check& c : r.checks) {
    if (!c.passed) s += c.name + " [" + c.host + "]: " + c.reason + "\n";
  }
  for (const AcceptanceSuspect& x : r.suspects) {
    s += "suspect " + std::string(Name(x.what)) + " " + x.host + " " + x.peer + " " + std::to_string(x.rank) + " " +
         std::to_string(x.score) + ": " + (x.evidence.empty() ? "" : x.evidence[0]) + "\n";
  }
  return s;
}

inline const Check* Find(const AcceptanceReport& r, const std::string& name, const std::string& host = "") {
  for (const Check& c : r.checks) {
    if (c.name == name && c.host == host) return &c;
  }
  return nullptr;
}

}  // namespace commbench::accept::judge_testing
