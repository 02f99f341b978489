// The host phase (judge/host.cc): each host's own ranks against the floors and ceilings and the other hosts.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "lib/accept/judge/testing.h"

namespace commbench::accept {
namespace {

using namespace judge_testing;  // NOLINT: the synthetic cluster and report lookups

TEST(HostJudgeTest, HostWithoutPointsFailsClosed) {
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

// Host 3's own ranks take 4x the others' time in the host phase (its network is fine).
AcceptanceInput SlowOwnRanks(Cluster& c, int slow) {
  AcceptanceInput in = c.Input();
  for (result::PointResult& p : in.phases[1].points) {
    for (result::GroupTime& g : p.per_group) {
      if (g.hosts[0] == Address(slow)) g.p50_us *= 4;
    }
  }
  return in;
}

TEST(HostJudgeTest, SlowHostOfItsOwnIsASuspect) {
  Cluster c;
  AcceptanceReport r = Judge(SlowOwnRanks(c, 3));
  EXPECT_FALSE(r.passed);
  ASSERT_EQ(r.suspects.size(), 1u) << Failed(r);
  EXPECT_EQ(r.suspects[0].what, SuspectWhat::kHost);
  EXPECT_EQ(r.suspects[0].host, Address(3));
  EXPECT_NEAR(r.suspects[0].score, 0.75, 0.05);
  const std::string& e = r.suspects[0].evidence[0];
  EXPECT_EQ(e.rfind("host phase (allreduce 4M, its own ranks only): median ", 0), 0u) << e;
  EXPECT_NE(e.find("4x the typical host's"), std::string::npos) << e;
  EXPECT_NE(e.find("and the floor 2.04 GB/s (0.5 x best_host 4.07 GB/s)"), std::string::npos) << e;
  const Check* floor = Find(r, "host allreduce 4M busbw floor 0.5xbest_host", Address(3));
  ASSERT_NE(floor, nullptr);
  EXPECT_FALSE(floor->passed) << floor->reason;
  EXPECT_TRUE(Find(r, "host allreduce 4M busbw floor 0.5xbest_host", Address(2))->passed);
  for (const HostVerdict& h : r.hosts) {
    EXPECT_EQ(h.passed, h.host != Address(3)) << h.host;
    EXPECT_GT(h.host_busbw_gbps, 0) << h.host;
  }
}

// A CPU-starved host (its ranks runnable without a CPU: a quota, throttling) against one whose network is slow:
// both are named, and the evidence tells which.
TEST(HostJudgeTest, ACpuStarvedHostSaysItsRanksWaitedForACpu) {
  Cluster c;
  c.host_cpu_wait_us[5] = 20000;  // its 4M op: about 6.3 ms healthy, 26 ms so
  AcceptanceReport r = Judge(c.Input());
  ASSERT_FALSE(r.suspects.empty()) << Failed(r);
  EXPECT_EQ(r.suspects[0].what, SuspectWhat::kHost);
  EXPECT_EQ(r.suspects[0].host, Address(5));
  ASSERT_GE(r.suspects[0].evidence.size(), 2u);
  const std::string& e = r.suspects[0].evidence[1];
  EXPECT_EQ(e.rfind("its ranks waited for a CPU ", 0), 0u) << e;
  EXPECT_NE(e.find("more than the typical host's"), std::string::npos) << e;
  EXPECT_NE(e.find("most of its excess is time without a CPU"), std::string::npos) << e;
}

TEST(HostJudgeTest, ASlowHostWhoseRanksHadTheirCpusSaysSo) {
  Cluster c;
  for (int h = 0; h < c.hosts; ++h) c.host_cpu_wait_us[h] = 50;  // every host's ranks wait a little alike
  AcceptanceReport r = Judge(SlowOwnRanks(c, 3));
  ASSERT_FALSE(r.suspects.empty()) << Failed(r);
  EXPECT_EQ(r.suspects[0].host, Address(3));
  ASSERT_GE(r.suspects[0].evidence.size(), 2u);
  const std::string& e = r.suspects[0].evidence[1];
  EXPECT_NE(e.find("its excess is not time without a CPU"), std::string::npos) << e;
  // Without a recorded wait (older files) nothing is said of the CPU.
  Cluster d;
  AcceptanceInput older = SlowOwnRanks(d, 3);
  for (PhaseResult& ph : older.phases) {
    for (result::PointResult& p : ph.points) {
      for (result::RankTime& rank : p.per_rank) rank.runqueue_wait_s = -1;
    }
  }
  r = Judge(older);
  ASSERT_FALSE(r.suspects.empty());
  for (const std::string& ev : r.suspects[0].evidence) EXPECT_EQ(ev.find("for a CPU"), std::string::npos) << ev;
}

TEST(HostJudgeTest, TooFewHostsToCallOneUnlike) {
  Cluster c;
  c.hosts = 2;
  AcceptanceInput in = SlowOwnRanks(c, 1);
  in.profile.phases = {Phase::kCluster, Phase::kHost};
  in.phases.resize(2);
  AcceptanceReport r = Judge(in);
  for (const AcceptanceSuspect& s : r.suspects) {
    for (const std::string& e : s.evidence) EXPECT_EQ(e.find("host phase"), std::string::npos) << e;
  }
}

TEST(HostJudgeTest, OneRankPerHostJudgesOnlyTimes) {
  Cluster c;
  c.ranks_per_host = 1;
  AcceptanceReport r = Judge(c.Input());
  EXPECT_NE(std::find(r.notes.begin(), r.notes.end(),
                      "host phase: one rank per host, so its busbw is undefined; only its times are judged"),
            r.notes.end());
  EXPECT_EQ(Find(r, "host allreduce 4M busbw floor 0.5xbest_host", Address(0)), nullptr);
  ASSERT_NE(Find(r, "host allreduce 4K latency p50", Address(0)), nullptr);
  EXPECT_TRUE(Find(r, "host allreduce 4K latency p50", Address(0))->passed);
}

}  // namespace
}  // namespace commbench::accept
