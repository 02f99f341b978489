// The pairs phase (judge/pairs.cc): pair floors, the pair matrix, pair scores, slow hosts and links.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "lib/accept/judge/testing.h"

namespace commbench::accept {
namespace {

using namespace judge_testing;  // NOLINT: the synthetic cluster and report lookups

TEST(PairsJudgeTest, SlowHostFirst) {
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
TEST(PairsJudgeTest, OneRoundIsNotEnoughToCallALink) {
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

TEST(PairsJudgeTest, SlowLinkFirst) {
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

// The same pair as slow, but because its ranks waited for a CPU (8 ms per 4M op, the whole of its extra time):
// a note, no link suspect. A capped link whose ranks also waited a little is still the link.
TEST(PairsJudgeTest, APairSlowedByWaitingForACpuIsANoteNotALink) {
  const Pair slow = RepairingRounds(8, 7, 7)[2][1];
  Cluster c;
  c.pair_cpu_wait_us[slow] = 8000;  // its 4M op: about 6.3 ms healthy, 14.3 ms so
  AcceptanceReport r = Judge(c.Input());
  for (const AcceptanceSuspect& s : r.suspects) EXPECT_NE(s.what, SuspectWhat::kLink) << Failed(r);
  bool noted = false;
  for (const std::string& n : r.notes) {
    noted |=
        n.rfind("pairs phase (allreduce 4M): the pair " + Address(slow.first) + "-" + Address(slow.second), 0) == 0 &&
        n.find("not the link") != std::string::npos;
  }
  EXPECT_TRUE(noted) << Failed(r);
  Cluster d;
  d.link[slow] = 0.25;
  d.pair_cpu_wait_us[slow] = 1000;
  AcceptanceReport capped = Judge(d.Input());
  ASSERT_FALSE(capped.suspects.empty()) << Failed(capped);
  EXPECT_EQ(capped.suspects[0].what, SuspectWhat::kLink) << Failed(capped);
}

TEST(PairsJudgeTest, TwoBadHostsBothNamedFirst) {
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

TEST(PairsJudgeTest, HealthyPairsStayQuiet) {
  Cluster c;
  AcceptanceReport r = Judge(c.Input());
  for (const Check& k : r.checks) {
    if (k.name.rfind("pairs ", 0) != 0) continue;
    EXPECT_TRUE(k.passed) << k.name << " [" << k.host << "]: " << k.reason;
  }
  for (int h = 0; h < c.hosts; ++h) ASSERT_NE(Find(r, "pairs allreduce 4M pair score", Address(h)), nullptr) << h;
  EXPECT_EQ(Find(r, "pairs allreduce 4K pair score", Address(0)), nullptr);  // localised at the largest size only
  EXPECT_EQ(Find(r, "pairs rounds")->reason, "7 of the 7 rounds ran");
  EXPECT_TRUE(r.suspects.empty()) << Failed(r);
}

TEST(PairsJudgeTest, NoPairMeasuredFailsClosed) {
  Cluster c;
  AcceptanceInput in = c.Input();
  for (PhaseResult& pr : in.phases) {
    if (pr.phase == Phase::kPairs) pr.points.pop_back();  // every round's 4M point
  }
  AcceptanceReport r = Judge(in);
  const Check* none = Find(r, "pairs allreduce 4M pairs");
  ASSERT_NE(none, nullptr);
  EXPECT_FALSE(none->passed);
  EXPECT_EQ(none->reason, "no host pair was measured at pairs allreduce 4M (fails closed)");
  EXPECT_TRUE(r.pair_matrices.empty());
}

}  // namespace
}  // namespace commbench::accept
