// The bisection phase (judge/bisection.cc): block floors, each host's blocks, Bisect's suspects.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "lib/accept/judge/testing.h"

namespace commbench::accept {
namespace {

using namespace judge_testing;  // NOLINT: the synthetic cluster and report lookups

TEST(BisectionJudgeTest, BisectionNamesTheSlowHost) {
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
  EXPECT_FALSE(r.hosts_compared) << "bisection judges busbw only: the other hosts' latency is not cleared";
  EXPECT_FALSE(CleanAnswer(r)) << Failed(r);
  r.hosts_compared = true;  // as with a profile of one size
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

TEST(BisectionJudgeTest, BisectionHealthyAndNoisyPass) {
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    Cluster c;
    c.noise = 0.1;
    c.rng.seed(seed);
    AcceptanceReport r = Judge(c.BisectInput());
    EXPECT_TRUE(r.passed) << "seed " << seed << "\n" << Failed(r);
    EXPECT_TRUE(r.suspects.empty());
  }
}

TEST(BisectionJudgeTest, BisectionTwoBadHostsInDifferentHalves) {
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

TEST(BisectionJudgeTest, BisectionStopsOnceClear) {
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
  EXPECT_FALSE(CleanAnswer(two)) << "busbw only: the pairs go on to the latency";
  two.hosts_compared = true;  // as with a profile of one size
  EXPECT_TRUE(CleanAnswer(two)) << Failed(two);
  EXPECT_TRUE(Find(two, "bisection levels")->passed);
  EXPECT_EQ(Find(two, "bisection levels")->reason,
            "2 of the 3 levels ran: stopped early, the suspect was already clear");
}

// A slow link inside a block of the finest cut: its block fails, each host passes elsewhere, no host is named.
TEST(BisectionJudgeTest, SlowLinkIsAnUnexplainedBlock) {
  Cluster c;
  c.link[{2, 3}] = 0.2;
  AcceptanceReport r = Judge(c.BisectInput());
  EXPECT_FALSE(r.passed);
  EXPECT_TRUE(r.suspects.empty()) << Failed(r);
  const Check* unexplained = Find(r, "bisection allreduce 4M unexplained blocks");
  ASSERT_NE(unexplained, nullptr);
  EXPECT_FALSE(unexplained->passed);
  EXPECT_EQ(unexplained->measured, 2);
  EXPECT_NE(unexplained->reason.find("level 2 block [10.77.0.3, 10.77.0.4]"), std::string::npos) << unexplained->reason;
  EXPECT_NE(unexplained->reason.find("each of its hosts passed in another block"), std::string::npos)
      << unexplained->reason;
  for (int h = 0; h < c.hosts; ++h) EXPECT_TRUE(Find(r, "bisection allreduce 4M blocks", Address(h))->passed) << h;
}

TEST(BisectionJudgeTest, NoBlockMeasuredFailsClosed) {
  Cluster c;
  AcceptanceInput in = c.BisectInput();
  for (PhaseResult& pr : in.phases) {
    if (pr.phase == Phase::kBisection) pr.points.pop_back();  // every level's 4M point
  }
  AcceptanceReport r = Judge(in);
  const Check* none = Find(r, "bisection allreduce 4M blocks");
  ASSERT_NE(none, nullptr);
  EXPECT_FALSE(none->passed);
  EXPECT_EQ(none->reason, "no block was measured at bisection allreduce 4M (fails closed)");
  EXPECT_TRUE(r.bisections.empty());
}

}  // namespace
}  // namespace commbench::accept
