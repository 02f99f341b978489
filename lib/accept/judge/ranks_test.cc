// Slow ranks across phases (judge/ranks.cc): a process much slower than its group peers, by process rank.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "lib/accept/judge/testing.h"

namespace commbench::accept {
namespace {

using namespace judge_testing;  // NOLINT: the synthetic cluster and report lookups

TEST(RanksJudgeTest, SlowRankNamesItsHostAndRank) {
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

// The same slow rank, its extra time spent runnable without a CPU, and again with its CPU: the evidence tells which.
TEST(RanksJudgeTest, ASlowRankSaysWhetherItWaitedForACpu) {
  for (bool starved : {true, false}) {
    Cluster c;
    c.slow_rank = 5;
    c.slow_factor = 4;
    c.slow_rank_waits_for_cpu = starved;
    AcceptanceReport r = Judge(c.Input());
    ASSERT_FALSE(r.suspects.empty());
    ASSERT_EQ(r.suspects[0].what, SuspectWhat::kRank) << Failed(r);
    std::string all;
    for (const std::string& e : r.suspects[0].evidence) all += e + "\n";
    EXPECT_NE(all.find("it waited for a CPU "), std::string::npos) << all;
    EXPECT_EQ(all.find("most of its excess is time without a CPU") != std::string::npos, starved) << all;
    EXPECT_EQ(all.find("its excess is not time without a CPU") != std::string::npos, !starved) << all;
  }
}

// The pairs rounds place each process at another launch rank: the suspect is still one process, named by the
// rank its launcher gave it.
TEST(RanksJudgeTest, SlowRankIsNamedByItsProcessRankAcrossReorderedPhases) {
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

TEST(RanksJudgeTest, BisectionSlowRankNamesItsHostAndRank) {
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

TEST(RanksJudgeTest, NoisyRanksAreNotSuspects) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    Cluster c;
    c.noise = 0.1;
    c.rng.seed(seed);
    AcceptanceReport r = Judge(c.Input());
    for (const AcceptanceSuspect& s : r.suspects) EXPECT_NE(s.what, SuspectWhat::kRank) << Failed(r);
  }
}

// Slow at fewer than half of its points: not a rank suspect.
TEST(RanksJudgeTest, SlowInAFewPointsOnlyIsNotASuspect) {
  Cluster c;
  AcceptanceInput in = c.Input();
  result::PointResult& p = in.phases[0].points[1];  // one cluster point of the 18
  p.per_rank[5].time_us.p50 *= 4;
  AcceptanceReport r = Judge(in);
  for (const AcceptanceSuspect& s : r.suspects) EXPECT_NE(s.what, SuspectWhat::kRank) << Failed(r);
}

// One host, two ranks, rank 1 sleeping 3 ms each iteration (local-smoke with --test-only-slow-rank 1:3000): both
// medians rise alike, only rank 1 never had a fast iteration. It is the first suspect, a straggler; its host fails.
TEST(RanksJudgeTest, StragglerOnOneHostIsTheFirstSuspect) {
  Cluster c;
  c.hosts = 1;
  c.straggler = 1;
  c.straggler_us = 3000;
  AcceptanceInput in = c.Input(0);
  in.profile = TestProfile(kOneHostProfile);
  AcceptanceReport r = Judge(in);
  EXPECT_EQ(r.ExitCode(), 1) << Failed(r);
  ASSERT_FALSE(r.suspects.empty()) << Failed(r);
  EXPECT_EQ(r.suspects[0].what, SuspectWhat::kRank);
  EXPECT_EQ(r.suspects[0].rank, 1);
  EXPECT_EQ(r.suspects[0].reason, ReasonKind::kStraggler);
  EXPECT_NE(r.suspects[0].evidence[0].find(
                "straggler: rank 1 on 10.77.0.1 (pid 4001) was the last of its group at 4 of the 4"),
            std::string::npos)
      << Failed(r);
  ASSERT_EQ(r.hosts.size(), 1u);
  EXPECT_FALSE(r.hosts[0].passed);
  EXPECT_EQ(r.hosts[0].reason_kinds, std::vector<ReasonKind>{ReasonKind::kStraggler}) << Failed(r);
}

TEST(RanksJudgeTest, StragglerAmongEightHostsNamesItsRank) {
  Cluster c;
  c.straggler = 5;
  c.straggler_us = 3000;
  AcceptanceReport r = Judge(c.Input());
  ASSERT_FALSE(r.suspects.empty()) << Failed(r);
  EXPECT_EQ(r.suspects[0].what, SuspectWhat::kRank) << Failed(r);
  EXPECT_EQ(r.suspects[0].host, Address(2));
  EXPECT_EQ(r.suspects[0].rank, 5);
  EXPECT_EQ(r.suspects[0].reason, ReasonKind::kStraggler) << Failed(r);
}

// A rank a little late (less than the profile's excess), or healthy noisy ranks: no straggler.
TEST(RanksJudgeTest, StragglerStaysQuietBelowTheProfilesExcessAndOnNoise) {
  Cluster late;
  late.hosts = 1;
  late.straggler = 1;
  late.straggler_us = 200;
  AcceptanceInput in = late.Input(0);
  in.profile = TestProfile(kOneHostProfile);
  AcceptanceReport r = Judge(in);
  EXPECT_TRUE(r.suspects.empty()) << Failed(r);
  EXPECT_EQ(r.ExitCode(), 0) << Failed(r);
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    Cluster c;
    c.noise = 0.2;
    c.rng.seed(seed);
    AcceptanceReport noisy = Judge(c.Input());
    for (const AcceptanceSuspect& s : noisy.suspects) EXPECT_NE(s.reason, ReasonKind::kStraggler) << Failed(noisy);
  }
}

}  // namespace
}  // namespace commbench::accept
