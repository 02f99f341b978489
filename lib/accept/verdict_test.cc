#include "lib/accept/verdict.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <set>

namespace commbench::accept {
namespace {

constexpr uint64_t kSmall = 4 << 10, kLarge = 4 << 20;

const char kProfile[] =
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
const char kBisectProfile[] =
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

Profile TestProfile(const char* text = kProfile) {
  auto p = ParseProfile(text, "test.yaml");
  EXPECT_TRUE(p.ok()) << p.status().message();
  return *p;
}

std::string Address(int h) { return "10.77.0." + std::to_string(h + 1); }

// A synthetic cluster: busbw over the network 1 GB/s per healthy host and link, 4 GB/s inside a host, 30 us
// latency; a slow host's network, a slow link or a slow rank scale it; multiplicative noise on every time.
struct Cluster {
  int hosts = 8, ranks_per_host = 2;
  std::map<int, double> host_net;  // factor on a host's network bandwidth
  std::map<Pair, double> link;     // factor on one link
  int slow_rank = -1;  // a process rank (host * ranks_per_host + k)
  double slow_factor = 1;
  // As real launches number ranks: each point's ranks in the order of its groups (so a process has a different
  // rank in each phase), its process rank recorded beside. Off: rank = process rank, none recorded (older files).
  bool launch_order = false;
  double noise = 0.03;
  std::mt19937_64 rng{1};

  double Noise() { return std::exp(std::normal_distribution<double>(0, noise)(rng)); }
  double Net(int h) { return host_net.count(h) ? host_net[h] : 1.0; }
  double Link(int a, int b) {
    Pair p{std::min(a, b), std::max(a, b)};
    return link.count(p) ? link[p] : 1.0;
  }

  // One point of `groups` (each a list of hosts whose ranks it holds).
  result::PointResult Point(uint64_t bytes, const std::vector<std::vector<int>>& groups) {
    result::PointResult p;
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
      const double t = 30 + static_cast<double>(bytes) * 2.0 * (n - 1) / n / (gbps * 1e3);
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
          r.time_us.p50 = t * Noise();
          r.time_us.p99 = 1.4 * r.time_us.p50;
          p.per_rank.push_back(r);
        }
      }
      bool has_slow = false;
      for (const result::RankTime& r : p.per_rank) has_slow |= r.group == static_cast<int>(g) && process(r) == slow_rank;
      for (result::RankTime& r : p.per_rank) {
        if (r.group != static_cast<int>(g)) continue;
        if (process(r) == slow_rank) {
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
      for (uint64_t bytes : {kSmall, kLarge}) pairs.points.push_back(Point(bytes, groups));
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

std::string Failed(const AcceptanceReport& r) {
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

const Check* Find(const AcceptanceReport& r, const std::string& name, const std::string& host = "") {
  for (const Check& c : r.checks) {
    if (c.name == name && c.host == host) return &c;
  }
  return nullptr;
}

TEST(VerdictTest, HealthyClusterPassesWithNoSuspect) {
  Cluster c;
  AcceptanceReport r = Judge(c.Input());
  EXPECT_TRUE(r.passed) << Failed(r);
  EXPECT_TRUE(r.suspects.empty()) << Failed(r);
  EXPECT_EQ(r.ExitCode(), 0);
  EXPECT_TRUE(CleanAnswer(r));
  ASSERT_EQ(r.hosts.size(), 8u);
  for (const HostVerdict& h : r.hosts) {
    EXPECT_TRUE(h.passed) << h.host;
    EXPECT_GE(h.partners, 6) << h.host;  // 7 greedy rounds of 8 hosts: (nearly) every other host
    EXPECT_EQ(h.partners_passed, h.partners);
    EXPECT_GT(h.points, 0);
  }
  const Check* floor = Find(r, "cluster allreduce 4M busbw floor");
  ASSERT_NE(floor, nullptr);
  EXPECT_NEAR(floor->measured, 1.0, 0.1);  // DESIGN §5 busbw of the synthetic 1 GB/s network
  EXPECT_DOUBLE_EQ(floor->limit, 0.5);
  ASSERT_EQ(r.pair_matrices.size(), 1u);
  const PairMatrix& m = r.pair_matrices[0];
  EXPECT_NEAR(m.typical_gbps, 1.0, 0.1);
  EXPECT_TRUE(std::isnan(m.gbps[0][0]));
  // The highest pairs floor: 0.5 x the best pair (about 1 GB/s) over the declared 0.3.
  EXPECT_NEAR(m.floor_gbps, 0.5, 0.05);
  EXPECT_EQ(m.floor.rfind("0.5 x best_pair", 0), 0u) << m.floor;
  int met = 0;
  for (size_t i = 0; i < m.hosts.size(); ++i) {
    EXPECT_EQ(m.rounds[i][i], 0);
    for (size_t j = 0; j < m.hosts.size(); ++j) {
      met += m.rounds[i][j];
      EXPECT_EQ(m.rounds[i][j], m.rounds[j][i]);
      EXPECT_EQ(m.rounds_passed[i][j], m.rounds[i][j]) << i << "-" << j;
      EXPECT_EQ(m.rounds[i][j] == 0, std::isnan(m.gbps[i][j])) << i << "-" << j;
    }
  }
  EXPECT_EQ(met, 2 * 7 * 4);  // 7 rounds of 4 pairs, each counted at both of its cells
}

TEST(VerdictTest, NoiseOnlyPasses) {
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    Cluster c;
    c.noise = 0.1;
    c.rng.seed(seed);
    AcceptanceReport r = Judge(c.Input());
    EXPECT_TRUE(r.passed) << "seed " << seed << "\n" << Failed(r);
  }
}

TEST(VerdictTest, SlowHostFirst) {
  Cluster c;
  c.host_net[3] = 0.25;  // its link capped to a quarter of the others'
  AcceptanceReport r = Judge(c.Input());
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.ExitCode(), 1);
  ASSERT_FALSE(r.suspects.empty()) << Failed(r);
  EXPECT_EQ(r.suspects[0].what, SuspectWhat::kHost) << Failed(r);
  EXPECT_EQ(r.suspects[0].host, Address(3));
  EXPECT_EQ(r.suspects.size(), 1u) << Failed(r);
  EXPECT_NEAR(r.suspects[0].score, 0.75, 0.05);
  const std::string& e = r.suspects[0].evidence[0];
  EXPECT_NE(e.find("failed with 7 of its 7 partners"), std::string::npos) << e;
  EXPECT_NE(e.find("10.77.0.1 0.2"), std::string::npos) << e;
  EXPECT_NE(e.find(" GB/s (25% of typical), 10.77.0.2 "), std::string::npos) << e;
  bool floor_figure = false;
  for (const std::string& x : r.suspects[0].evidence) floor_figure |= x.find("the floor 0.3 GB/s") != std::string::npos;
  EXPECT_TRUE(floor_figure) << Failed(r);
  EXPECT_TRUE(CleanAnswer(r));
  for (const HostVerdict& h : r.hosts) EXPECT_EQ(h.passed, h.host != Address(3)) << h.host;
  const Check* score = Find(r, "pairs allreduce 4M pair score", Address(3));
  ASSERT_NE(score, nullptr);
  EXPECT_FALSE(score->passed);
  EXPECT_EQ(score->measured, 0);
  EXPECT_EQ(score->limit, r.hosts[3].partners);
  // The heat map's figures: every round with host 3 failed, every other round passed.
  ASSERT_EQ(r.pair_matrices.size(), 1u);
  const PairMatrix& m = r.pair_matrices[0];
  for (size_t j = 0; j < m.hosts.size(); ++j) {
    EXPECT_EQ(m.rounds_passed[3][j], 0) << j;
    if (j != 3 && m.rounds[1][j] > 0) {
      EXPECT_EQ(m.rounds_passed[1][j], m.rounds[1][j]) << j;
    }
  }
}

// After one pairs round a slow host and a slow link look alike (one slow pair): not a clean answer yet.
TEST(VerdictTest, OneRoundIsNotEnoughToCallALink) {
  Cluster c;
  const Pair slow = RepairingRounds(8, 7, 7)[0][0];  // met in the first round
  c.link[slow] = 0.25;
  AcceptanceReport one = Judge(c.Input(1));
  ASSERT_FALSE(one.suspects.empty()) << Failed(one);
  EXPECT_FALSE(CleanAnswer(one)) << Failed(one);
  AcceptanceReport all = Judge(c.Input());
  ASSERT_FALSE(all.suspects.empty()) << Failed(all);
  EXPECT_EQ(all.suspects[0].what, SuspectWhat::kLink) << Failed(all);
  EXPECT_TRUE(CleanAnswer(all)) << Failed(all);
}

TEST(VerdictTest, SlowLinkFirst) {
  Cluster c;
  const Pair slow = RepairingRounds(8, 7, 7)[2][1];  // a pair the rounds meet
  c.link[slow] = 0.25;
  AcceptanceReport r = Judge(c.Input());
  EXPECT_FALSE(r.passed);
  ASSERT_FALSE(r.suspects.empty()) << Failed(r);
  EXPECT_EQ(r.suspects[0].what, SuspectWhat::kLink) << Failed(r);
  EXPECT_EQ(r.suspects[0].host, Address(slow.first));
  EXPECT_EQ(r.suspects[0].peer, Address(slow.second));
  EXPECT_EQ(r.suspects.size(), 1u) << Failed(r);
  EXPECT_NE(r.suspects[0].evidence[0].find("moved 0.2"), std::string::npos) << r.suspects[0].evidence[0];
  EXPECT_NE(r.suspects[0].evidence[0].find(" partners and "), std::string::npos) << r.suspects[0].evidence[0];
  const Check* floor = Find(r, "pairs allreduce 4M busbw floor");
  ASSERT_NE(floor, nullptr);
  EXPECT_FALSE(floor->passed);
  EXPECT_NE(floor->reason.find("1 of "), std::string::npos) << floor->reason;
  EXPECT_NE(floor->reason.find(Address(slow.first) + "-" + Address(slow.second)), std::string::npos) << floor->reason;
  for (const HostVerdict& h : r.hosts) {
    const bool end = h.host == Address(slow.first) || h.host == Address(slow.second);
    EXPECT_EQ(h.passed, !end) << h.host;
  }
}

TEST(VerdictTest, SlowRankNamesItsHostAndRank) {
  Cluster c;
  c.slow_rank = 5;  // host 2's second rank
  c.slow_factor = 4;
  AcceptanceReport r = Judge(c.Input());
  EXPECT_FALSE(r.passed);
  ASSERT_FALSE(r.suspects.empty());
  EXPECT_EQ(r.suspects[0].what, SuspectWhat::kRank) << Failed(r);
  EXPECT_EQ(r.suspects[0].host, Address(2));
  EXPECT_EQ(r.suspects[0].rank, 5);
  EXPECT_EQ(r.suspects.size(), 1u) << Failed(r);  // its host's suspicion folded into it
  std::string all;
  for (const std::string& e : r.suspects[0].evidence) all += e + "\n";
  EXPECT_NE(all.find("x its group peers'"), std::string::npos) << all;
  EXPECT_NE(all.find("arrival skew: the slowest rank at"), std::string::npos) << all;
  EXPECT_NE(all.find("host phase"), std::string::npos) << all;
  EXPECT_NE(all.find("pairs phase"), std::string::npos) << all;
}

// The pairs rounds place each process at another launch rank: the suspect is still one process, named by the
// rank its launcher gave it.
TEST(VerdictTest, SlowRankIsNamedByItsProcessRankAcrossReorderedPhases) {
  Cluster c;
  c.launch_order = true;
  c.slow_rank = 5;
  c.slow_factor = 4;
  AcceptanceReport r = Judge(c.Input());
  ASSERT_FALSE(r.suspects.empty());
  EXPECT_EQ(r.suspects[0].what, SuspectWhat::kRank) << Failed(r);
  EXPECT_EQ(r.suspects[0].host, Address(2));
  EXPECT_EQ(r.suspects[0].rank, 5) << Failed(r);
  EXPECT_EQ(r.suspects.size(), 1u) << Failed(r);
  EXPECT_NE(r.suspects[0].evidence[0].find("of the 18 points it ran"), std::string::npos) << Failed(r);
}

TEST(VerdictTest, TwoBadHostsBothNamedFirst) {
  Cluster c;
  c.host_net[2] = 0.25;
  c.host_net[6] = 0.3;
  AcceptanceReport r = Judge(c.Input());
  ASSERT_GE(r.suspects.size(), 2u) << Failed(r);
  std::set<std::string> top = {r.suspects[0].host, r.suspects[1].host};
  EXPECT_EQ(top, (std::set<std::string>{Address(2), Address(6)})) << Failed(r);
  EXPECT_EQ(r.suspects[0].what, SuspectWhat::kHost);
  EXPECT_EQ(r.suspects[1].what, SuspectWhat::kHost);
  EXPECT_EQ(r.suspects.size(), 2u) << Failed(r);
  EXPECT_FALSE(CleanAnswer(r));  // two of a kind: not one clear culprit
}

TEST(VerdictTest, MissingPhaseFailsClosedUnlessEarlierAnswerWasClean) {
  // A slow host, and the pairs phase did not run: the cluster phase failed, so the missing phase is a failure.
  Cluster slow;
  slow.host_net[3] = 0.25;
  AcceptanceInput in = slow.Input();
  in.phases.resize(2);
  in.phases.push_back({Phase::kPairs, 0, false, "time budget spent", {}});
  AcceptanceReport r = Judge(in);
  const Check* pairs = Find(r, "pairs phase");
  ASSERT_NE(pairs, nullptr);
  EXPECT_FALSE(pairs->passed);
  EXPECT_NE(pairs->reason.find("time budget spent"), std::string::npos) << pairs->reason;
  EXPECT_FALSE(r.passed);

  // Healthy: the cluster and host phases pass, so pairs was not needed.
  Cluster healthy;
  AcceptanceInput ok = healthy.Input();
  ok.phases.resize(2);
  AcceptanceReport fine = Judge(ok);
  const Check* skipped = Find(fine, "pairs phase");
  ASSERT_NE(skipped, nullptr);
  EXPECT_TRUE(skipped->passed) << skipped->reason;
  EXPECT_TRUE(fine.passed) << Failed(fine);

  // The first phase missing can never be excused, whatever the others say.
  AcceptanceInput no_cluster = healthy.Input();
  no_cluster.phases.erase(no_cluster.phases.begin());
  AcceptanceReport closed = Judge(no_cluster);
  EXPECT_FALSE(closed.passed);
  ASSERT_NE(Find(closed, "cluster phase"), nullptr);
  EXPECT_NE(Find(closed, "cluster phase")->reason.find("no result was given"), std::string::npos);

  // Bisection that could not run: acceptable only after a clean answer, like any phase.
  AcceptanceInput bis = healthy.BisectInput();
  bis.phases.resize(2);
  bis.phases.push_back({Phase::kBisection, 0, false, "3 host(s): bisection needs at least 4 (two blocks of two)", {}});
  EXPECT_TRUE(Judge(bis).passed) << Failed(Judge(bis));
  AcceptanceInput slow_bis = slow.BisectInput();
  slow_bis.phases.resize(2);
  slow_bis.phases.push_back({Phase::kBisection, 0, false, "time budget spent", {}});
  AcceptanceReport open = Judge(slow_bis);
  EXPECT_FALSE(open.passed);
  ASSERT_NE(Find(open, "bisection phase"), nullptr);
  EXPECT_FALSE(Find(open, "bisection phase")->passed);
  EXPECT_NE(Find(open, "bisection phase")->reason.find("time budget spent"), std::string::npos);
}

TEST(VerdictTest, BisectionNamesTheSlowHost) {
  Cluster c;
  c.host_net[3] = 0.25;
  AcceptanceReport r = Judge(c.BisectInput());
  EXPECT_FALSE(r.passed);
  ASSERT_EQ(r.suspects.size(), 1u) << Failed(r);
  EXPECT_EQ(r.suspects[0].what, SuspectWhat::kHost);
  EXPECT_EQ(r.suspects[0].host, Address(3));
  EXPECT_NEAR(r.suspects[0].score, 0.75, 0.05);
  const std::string& e = r.suspects[0].evidence[0];
  EXPECT_EQ(e.rfind("bisection phase (allreduce 4M, 3 level(s), a block fails below 0.5 x the typical block of its "
                    "level or the floor 0.3 GB/s): its block failed at 3 of the 3 levels it ran: level 1 [10.77.0.1 .. "
                    "10.77.0.4 (4 hosts)] 0.2",
                    0),
            0u)
      << e;
  EXPECT_NE(e.find("level 3 (shifted) [10.77.0.4, 10.77.0.5]"), std::string::npos) << e;
  EXPECT_NE(e.find("its block mates passed in other blocks (10.77.0.3 at level 3, 10.77.0.5 at level 2)"),
            std::string::npos)
      << e;
  EXPECT_TRUE(CleanAnswer(r)) << Failed(r);
  for (const HostVerdict& h : r.hosts) EXPECT_EQ(h.passed, h.host != Address(3)) << h.host << "\n" << Failed(r);
  EXPECT_TRUE(Find(r, "bisection levels")->passed);
  EXPECT_TRUE(Find(r, "bisection allreduce 4M unexplained blocks")->passed);
  const Check* blocks = Find(r, "bisection allreduce 4M blocks", Address(3));
  ASSERT_NE(blocks, nullptr);
  EXPECT_FALSE(blocks->passed);
  EXPECT_EQ(blocks->reason, "10.77.0.4: its block passed at 0 of the 3 level(s) it ran; a suspect");
  const Check* floor = Find(r, "bisection allreduce 4M busbw floor");
  ASSERT_NE(floor, nullptr);
  EXPECT_FALSE(floor->passed);
  EXPECT_NE(floor->reason.find("3 of 10 blocks below the floor 0.3 GB/s"), std::string::npos) << floor->reason;
  ASSERT_EQ(r.bisections.size(), 1u);
  ASSERT_EQ(r.bisections[0].levels.size(), 3u);
  EXPECT_EQ(r.bisections[0].levels[1].blocks.size(), 4u);
}

TEST(VerdictTest, BisectionHealthyAndNoisyPass) {
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    Cluster c;
    c.noise = 0.1;
    c.rng.seed(seed);
    AcceptanceReport r = Judge(c.BisectInput());
    EXPECT_TRUE(r.passed) << "seed " << seed << "\n" << Failed(r);
    EXPECT_TRUE(r.suspects.empty());
  }
}

TEST(VerdictTest, BisectionTwoBadHostsInDifferentHalves) {
  Cluster c;
  c.host_net[1] = 0.25;
  c.host_net[6] = 0.3;
  AcceptanceReport r = Judge(c.BisectInput());
  ASSERT_EQ(r.suspects.size(), 2u) << Failed(r);
  EXPECT_EQ(r.suspects[0].host, Address(1));  // the slower first
  EXPECT_EQ(r.suspects[1].host, Address(6));
  EXPECT_FALSE(CleanAnswer(r));
  // Both halves fail at level 1 against the floor (0.3 GB/s; relative to each other they pass).
  ASSERT_FALSE(r.bisections.empty());
  const LevelVerdict& one = r.bisections[0].levels[0];
  EXPECT_TRUE(one.blocks[0].failed && one.blocks[1].failed);
}

TEST(VerdictTest, BisectionStopsOnceClear) {
  Cluster c;
  c.host_net[3] = 0.25;
  // Only the first launch ran (blocks of two): the slow host's block fails, its two hosts tied.
  AcceptanceReport one = Judge(c.BisectInput(1));
  EXPECT_FALSE(CleanAnswer(one)) << Failed(one);
  EXPECT_EQ(one.suspects.size(), 2u) << Failed(one);
  const Check* levels = Find(one, "bisection levels");
  ASSERT_NE(levels, nullptr);
  EXPECT_FALSE(levels->passed);
  EXPECT_EQ(levels->reason, "1 of the 3 levels ran: too few to localise (fails closed)");
  // The shifted cut tells them apart: a clean answer, the coarser level not needed.
  AcceptanceReport two = Judge(c.BisectInput(2));
  ASSERT_EQ(two.suspects.size(), 1u) << Failed(two);
  EXPECT_EQ(two.suspects[0].host, Address(3));
  EXPECT_TRUE(CleanAnswer(two)) << Failed(two);
  EXPECT_TRUE(Find(two, "bisection levels")->passed);
  EXPECT_EQ(Find(two, "bisection levels")->reason,
            "2 of the 3 levels ran: stopped early, the suspect was already clear");
}

TEST(VerdictTest, BisectionAndPairsMergeOneSuspect) {
  Cluster c;
  c.host_net[5] = 0.25;
  AcceptanceInput in = c.Input();
  in.profile.phases = {Phase::kCluster, Phase::kHost, Phase::kBisection, Phase::kPairs};
  for (PhaseResult& level : c.Bisection()) in.phases.push_back(level);
  AcceptanceReport r = Judge(in);
  ASSERT_EQ(r.suspects.size(), 1u) << Failed(r);
  EXPECT_EQ(r.suspects[0].host, Address(5));
  std::string all;
  for (const std::string& e : r.suspects[0].evidence) all += e + "\n";
  EXPECT_NE(all.find("bisection phase"), std::string::npos) << all;
  EXPECT_NE(all.find("pairs phase"), std::string::npos) << all;
}

TEST(VerdictTest, BisectionSlowRankNamesItsHostAndRank) {
  Cluster c;
  c.slow_rank = 5;  // host 2's second rank
  c.slow_factor = 4;
  AcceptanceReport r = Judge(c.BisectInput());
  ASSERT_FALSE(r.suspects.empty()) << Failed(r);
  EXPECT_EQ(r.suspects[0].what, SuspectWhat::kRank) << Failed(r);
  EXPECT_EQ(r.suspects[0].host, Address(2));
  EXPECT_EQ(r.suspects[0].rank, 5);
  EXPECT_EQ(r.suspects.size(), 1u) << Failed(r);
  std::string all;
  for (const std::string& e : r.suspects[0].evidence) all += e + "\n";
  EXPECT_NE(all.find("bisection phase"), std::string::npos) << all;
}

TEST(VerdictTest, HostWithoutPointsFailsClosed) {
  Cluster c;
  AcceptanceInput in = c.Input();
  // Host 7's ranks never ran in the host phase.
  for (result::PointResult& p : in.phases[1].points) {
    p.per_group.pop_back();
    p.per_rank.resize(p.per_rank.size() - 2);
  }
  AcceptanceReport r = Judge(in);
  EXPECT_FALSE(r.passed);
  const Check* missing = Find(r, "host allreduce 4M", Address(7));
  ASSERT_NE(missing, nullptr);
  EXPECT_FALSE(missing->passed);
  EXPECT_FALSE(r.hosts[7].passed);
  EXPECT_TRUE(r.hosts[6].passed);
}

TEST(VerdictTest, WrongResultFailsAndRepeatsForgiveOnlySpeed) {
  Cluster c;
  AcceptanceInput in = c.Input();
  // A second cluster repeat at 4M, slow: the best repeat passes the floor.
  result::PointResult slow = in.phases[0].points[1];
  slow.busbw_gbps *= 0.2;
  slow.time_us.p50 *= 5;
  in.phases[0].points.push_back(slow);
  AcceptanceReport r = Judge(in);
  EXPECT_TRUE(r.passed) << Failed(r);
  EXPECT_NE(Find(r, "cluster allreduce 4M busbw floor")->reason.find("best in 2 repeats"), std::string::npos);
  // A wrong result in one repeat fails whatever the others did.
  in.phases[0].points.back().correct = false;
  in.phases[0].points.back().errors = {"rank 3: element 17 is 2, expected 16"};
  AcceptanceReport wrong = Judge(in);
  EXPECT_FALSE(wrong.passed);
  const Check* correct = Find(wrong, "cluster allreduce 4M correct");
  ASSERT_NE(correct, nullptr);
  EXPECT_NE(correct->reason.find("rank 3: element 17"), std::string::npos) << correct->reason;
}

TEST(VerdictTest, PreflightNamesWhatIsMissingPerHost) {
  Cluster c;
  AcceptanceInput in = c.Input();
  in.found[4].ranks = {8};
  in.found[6].interfaces = {"lo"};
  in.found.pop_back();  // host 7 never joined
  AcceptanceReport r = Judge(in);
  EXPECT_TRUE(r.PreflightFailed());
  EXPECT_EQ(r.ExitCode(), 3);
  EXPECT_EQ(Find(r, "preflight ranks", Address(4))->reason, "10.77.0.5: 1 rank(s) joined, the profile expects 2");
  EXPECT_EQ(Find(r, "preflight interface", Address(6))->reason, "10.77.0.7: interface eth0 missing (present: lo)");
  EXPECT_EQ(Find(r, "preflight ranks", Address(7))->reason,
            "10.77.0.8: 0 rank(s) joined, the profile expects 2 (missing at rendezvous)");
  EXPECT_TRUE(Find(r, "preflight ranks", Address(0))->passed);
  std::vector<Check> alone = PreflightChecks(in.profile, in.expected_hosts, in.found);
  EXPECT_EQ(std::count_if(alone.begin(), alone.end(), [](const Check& k) { return !k.passed; }), 4);
}

TEST(VerdictTest, PairResultsOneMeasurementPerPairGroup) {
  Cluster c;
  AcceptanceInput in = c.Input(3);
  std::vector<PairResult> pairs = PairResults(in.phases, Collective::kAllreduce, kLarge, in.expected_hosts);
  EXPECT_EQ(pairs.size(), 12u);  // 3 rounds x 4 pairs
  for (const PairResult& p : pairs) EXPECT_NEAR(p.busbw_gbps, 1.0, 0.15);
  // 3 of 7 rounds ran: not enough to localise, so the rounds check fails closed.
  AcceptanceReport r = Judge(in);
  EXPECT_FALSE(Find(r, "pairs rounds")->passed);
}

}  // namespace
}  // namespace commbench::accept
