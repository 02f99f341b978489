#include "lib/accept/bisect.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <set>

namespace commbench::accept {
namespace {

std::vector<std::string> Names(int n) {
  std::vector<std::string> out;
  for (int h = 0; h < n; ++h) out.push_back("h" + std::to_string(h));
  return out;
}

// Block bandwidths over every level of `hosts` hosts: a block moves at the pace of its slowest host (`host_gbps`,
// 10 when healthy), times multiplicative noise.
std::vector<BlockResult> Measure(int hosts, const std::function<double(int)>& host_gbps, double noise, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> n(0, noise);
  std::vector<BlockResult> out;
  for (const BisectLevel& l : BisectionLevels(hosts)) {
    for (const std::vector<int>& block : l.blocks) {
      double g = 1e9;
      for (int h : block) g = std::min(g, host_gbps(h));
      out.push_back({l.level, block, g * std::exp(n(rng))});
    }
  }
  return out;
}

std::function<double(int)> SlowHosts(std::set<int> slow, double gbps = 2.5) {
  return [slow, gbps](int h) { return slow.count(h) ? gbps : 10.0; };
}

std::set<int> Named(const Bisection& b) {
  std::set<int> out;
  for (const BisectSuspect& s : b.suspects) out.insert(s.host);
  return out;
}

TEST(BisectionLevelsTest, HalvingDownToPairsThenTheShiftedCutFinestFirst) {
  std::vector<BisectLevel> l = BisectionLevels(8);
  ASSERT_EQ(l.size(), 3u);
  // Run order: the two finest cuts, then up to halves.
  EXPECT_EQ(l[0].level, 2);
  EXPECT_EQ(l[0].blocks, (std::vector<std::vector<int>>{{0, 1}, {2, 3}, {4, 5}, {6, 7}}));
  EXPECT_EQ(l[1].level, 3);
  EXPECT_EQ(l[1].blocks, (std::vector<std::vector<int>>{{1, 2}, {3, 4}, {5, 6}, {7, 0}}));
  EXPECT_EQ(l[2].level, 1);
  EXPECT_EQ(l[2].blocks, (std::vector<std::vector<int>>{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  EXPECT_TRUE(l[1].shifted);
  EXPECT_FALSE(l[0].shifted || l[2].shifted);
  std::vector<int> sixteen;
  for (const BisectLevel& x : BisectionLevels(16)) sixteen.push_back(x.level);
  EXPECT_EQ(sixteen, (std::vector<int>{3, 4, 2, 1}));
  EXPECT_EQ(BisectionLevels(1024).size(), 10u);  // log2(hosts) launches
  EXPECT_EQ(BisectionLevels(4).size(), 2u);
  EXPECT_TRUE(BisectionLevels(3).empty());
  // Five hosts: blocks of two, one host out in turn.
  std::vector<BisectLevel> five = BisectionLevels(5);
  ASSERT_EQ(five.size(), 2u);
  EXPECT_EQ(five[0].blocks, (std::vector<std::vector<int>>{{0, 1}, {2, 3}}));
  EXPECT_EQ(five[0].idle, std::vector<int>{4});
  EXPECT_EQ(five[1].blocks, (std::vector<std::vector<int>>{{1, 2}, {3, 4}}));
  EXPECT_EQ(five[1].idle, std::vector<int>{0});
}

TEST(BisectionLevelsTest, EqualBlocksEveryHostOnceNoneOutTwiceInARow) {
  for (int hosts = 4; hosts <= 40; ++hosts) {
    std::vector<BisectLevel> levels = BisectionLevels(hosts);
    ASSERT_GE(levels.size(), 2u) << hosts;
    EXPECT_EQ(levels[0].block_hosts, 2);
    EXPECT_EQ(levels[1].block_hosts, 2);
    std::sort(levels.begin(), levels.end(),
              [](const BisectLevel& a, const BisectLevel& b) { return a.level < b.level; });
    std::set<int> idle_before;
    for (const BisectLevel& l : levels) {
      std::multiset<int> seen(l.idle.begin(), l.idle.end());
      for (const auto& b : l.blocks) {
        EXPECT_EQ(static_cast<int>(b.size()), l.block_hosts) << hosts << " level " << l.level;
        seen.insert(b.begin(), b.end());
      }
      EXPECT_EQ(seen.size(), static_cast<size_t>(hosts)) << hosts;
      EXPECT_EQ(std::set<int>(seen.begin(), seen.end()).size(), static_cast<size_t>(hosts)) << hosts;
      EXPECT_GE(l.blocks.size(), 2u);
      EXPECT_LT(l.idle.size(), static_cast<size_t>(l.block_hosts));
      for (int h : l.idle) EXPECT_FALSE(idle_before.count(h)) << hosts << ": host " << h << " out twice in a row";
      idle_before = std::set<int>(l.idle.begin(), l.idle.end());
    }
  }
}

TEST(BisectTest, OneBadHostFoundWherever) {
  for (int bad = 0; bad < 8; ++bad) {
    Bisection b = Bisect(Names(8), Measure(8, SlowHosts({bad}), 0.05, static_cast<uint64_t>(bad) + 1));
    ASSERT_EQ(b.suspects.size(), 1u) << "host " << bad;
    EXPECT_EQ(b.suspects[0].host, bad);
    EXPECT_NEAR(b.suspects[0].severity, 0.75, 0.1);
    EXPECT_TRUE(b.suspects[0].tied_with.empty());
    EXPECT_TRUE(b.unexplained.empty()) << b.unexplained[0].evidence;
    EXPECT_EQ(std::count(b.cleared.begin(), b.cleared.end(), false), 1) << "only the bad host stays uncleared";
  }
  Bisection b = Bisect(Names(8), Measure(8, SlowHosts({3}), 0, 1));
  ASSERT_EQ(b.levels.size(), 3u);
  EXPECT_FALSE(b.levels[0].finest);
  EXPECT_TRUE(b.levels[1].finest && b.levels[2].finest);
  EXPECT_DOUBLE_EQ(b.levels[0].typical_gbps, 10);  // of two halves, the faster one
  EXPECT_EQ(b.suspects[0].evidence,
            "its block failed at 3 of the 3 levels it ran: level 1 [h0 .. h3 (4 hosts)] 2.5 GB/s, 25% of the typical "
            "block's 10 GB/s, failed; level 2 [h2, h3] 2.5 GB/s, 25% of the typical block's 10 GB/s, failed; level 3 "
            "(shifted) [h3, h4] 2.5 GB/s, 25% of the typical block's 10 GB/s, failed; its block mates passed in "
            "other blocks (h2 at level 3, h4 at level 2)");
}

TEST(BisectTest, BadHostAtAnOddPositionOfANonPowerOfTwoCluster) {
  for (int hosts : {5, 6, 7, 11, 12, 13}) {
    for (int bad = 0; bad < hosts; bad += 1) {
      Bisection b = Bisect(Names(hosts), Measure(hosts, SlowHosts({bad}), 0.05, static_cast<uint64_t>(hosts * bad)));
      ASSERT_EQ(b.suspects.size(), 1u) << hosts << " hosts, bad " << bad;
      EXPECT_EQ(b.suspects[0].host, bad) << hosts << " hosts";
      EXPECT_TRUE(b.unexplained.empty()) << hosts << " hosts, bad " << bad << ": " << b.unexplained[0].evidence;
    }
  }
  // Seven hosts, host 5 sat out level 2 and is still named by the other two.
  Bisection b = Bisect(Names(7), Measure(7, SlowHosts({5}), 0, 1));
  ASSERT_EQ(b.suspects.size(), 1u);
  EXPECT_NE(b.suspects[0].evidence.find("failed at 2 of the 2 levels it ran"), std::string::npos)
      << b.suspects[0].evidence;
  EXPECT_NE(b.suspects[0].evidence.find("level 2: sat out"), std::string::npos) << b.suspects[0].evidence;
}

TEST(BisectTest, NoiseOnlyNamesNoOne) {
  for (int hosts : {4, 8, 13, 32}) {
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      Bisection b = Bisect(Names(hosts), Measure(hosts, SlowHosts({}), 0.08, seed));
      EXPECT_TRUE(b.suspects.empty()) << hosts << " hosts, seed " << seed << ": " << b.suspects[0].evidence;
      EXPECT_TRUE(b.unexplained.empty()) << hosts << " hosts, seed " << seed;
      EXPECT_EQ(std::count(b.cleared.begin(), b.cleared.end(), true), hosts);
    }
  }
}

TEST(BisectTest, TwoBadHostsInDifferentHalves) {
  // With a floor both halves fail at level 1; the finer cuts name both hosts, each on its own.
  Bisection floor = Bisect(Names(8), Measure(8, SlowHosts({1, 6}), 0.05, 3), {5.0, 0.7});
  ASSERT_EQ(floor.levels.size(), 3u);
  EXPECT_TRUE(floor.levels[0].blocks[0].failed && floor.levels[0].blocks[1].failed);
  EXPECT_EQ(Named(floor), (std::set<int>{1, 6}));
  for (const BisectSuspect& s : floor.suspects) EXPECT_TRUE(s.tied_with.empty());
  EXPECT_TRUE(floor.unexplained.empty());
  // Without one, two equally slow halves pass against each other at level 1: the finer cuts still name both.
  Bisection relative = Bisect(Names(8), Measure(8, SlowHosts({1, 6}), 0.05, 3));
  EXPECT_FALSE(relative.levels[0].blocks[0].failed || relative.levels[0].blocks[1].failed);
  EXPECT_EQ(Named(relative), (std::set<int>{1, 6}));
  EXPECT_NE(relative.suspects[0].evidence.find(", passed; level 2"), std::string::npos)
      << relative.suspects[0].evidence;
}

TEST(BisectTest, AdjacentBadHostsBothNamed) {
  Bisection b = Bisect(Names(8), Measure(8, SlowHosts({2, 3}), 0.05, 5));
  EXPECT_EQ(Named(b), (std::set<int>{2, 3}));
}

TEST(BisectTest, TiedWhenNoBlockTellsThemApart) {
  // Only level 1 of four hosts ran: h0 and h1 shared the failing block and nothing else.
  std::vector<BlockResult> r = {{1, {0, 1}, 2.5}, {1, {2, 3}, 10}};
  Bisection b = Bisect(Names(4), r);
  EXPECT_EQ(Named(b), (std::set<int>{0, 1}));
  EXPECT_EQ(b.suspects[0].tied_with, std::vector<int>{b.suspects[0].host == 0 ? 1 : 0});
  EXPECT_NE(b.suspects[0].evidence.find("could not be told apart from"), std::string::npos) << b.suspects[0].evidence;
  // Repeats: the best counts (a block fails only if every repeat was slow).
  r.push_back({1, {1, 0}, 9.5});
  EXPECT_TRUE(Bisect(Names(4), r).suspects.empty());
}

TEST(BisectTest, SlowdownOnlyInOneCombinationIsUnexplained) {
  // A slow link between h3 and h4: only the shifted block [h3, h4] fails, and both hosts passed at level 2.
  auto results = Measure(8, SlowHosts({}), 0, 1);
  for (BlockResult& r : results) {
    if (r.hosts == std::vector<int>{3, 4}) r.busbw_gbps = 2.5;
  }
  Bisection b = Bisect(Names(8), results);
  EXPECT_TRUE(b.suspects.empty());
  ASSERT_EQ(b.unexplained.size(), 1u);
  EXPECT_EQ(b.unexplained[0].level, 3);
  EXPECT_NE(b.unexplained[0].evidence.find("each of its hosts passed in another block"), std::string::npos)
      << b.unexplained[0].evidence;
}

TEST(BisectTest, UniformlySlowBelowTheFloorNamesNoOne) {
  Bisection b = Bisect(Names(8),
                       Measure(
                           8, [](int) { return 3.0; }, 0.02, 1),
                       {8.0, 0.7});
  EXPECT_TRUE(b.suspects.empty());
  EXPECT_EQ(b.unexplained.size(), 2u + 4u + 4u);
  EXPECT_NE(b.unexplained[0].evidence.find("the slowdown is everywhere"), std::string::npos);
}

}  // namespace
}  // namespace commbench::accept
