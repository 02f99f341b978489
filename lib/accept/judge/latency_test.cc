// Small-message latency localised like bandwidth (judge/latency.cc): a host slow at latency is the first suspect,
// a slow link is named as a link, a healthy noisy cluster names nothing.
#include <gtest/gtest.h>

#include "lib/accept/judge/testing.h"

namespace commbench::accept {
namespace {

using namespace judge_testing;  // NOLINT: the synthetic cluster and report lookups

std::string Evidence(const AcceptanceSuspect& s) {
  std::string all;
  for (const std::string& e : s.evidence) all += e + "\n";
  return all;
}

// 400 us more per op wherever host 3 talks over the network: its 4M busbw stays within the pass line (about 95 %
// of typical), so only latency can name it.
TEST(LatencyJudgeTest, HostSlowAtLatencyIsTheFirstSuspect) {
  Cluster c;
  c.host_latency_us[3] = 400;
  AcceptanceReport r = Judge(c.Input());
  EXPECT_EQ(r.ExitCode(), 1);
  ASSERT_FALSE(r.suspects.empty()) << Failed(r);
  EXPECT_EQ(r.suspects[0].what, SuspectWhat::kHost) << Failed(r);
  EXPECT_EQ(r.suspects[0].host, Address(3)) << Failed(r);
  EXPECT_NE(Evidence(r.suspects[0]).find("pairs phase latency (allreduce 4K, median): slow with"), std::string::npos)
      << Evidence(r.suspects[0]);
  for (const HostVerdict& h : r.hosts) {
    EXPECT_EQ(h.passed, h.host != Address(3)) << h.host << "\n" << Failed(r);
    if (h.host == Address(3)) {
      EXPECT_EQ(h.reason_kinds, std::vector<ReasonKind>{ReasonKind::kOutlier});
    }
  }
}

// A cap on for part of each 4M point leaves the pair's median and moves its p99: the host is named by the tail at
// the bandwidth size, and its re-test confirms it by the same figure.
TEST(LatencyJudgeTest, AHostSlowForPartOfEachPointIsNamedByItsTailAtTheBandwidthSize) {
  Cluster c;
  c.host_net_tail[6] = 4;
  AcceptanceInput in = c.Input();
  const AcceptanceReport r = Judge(c.Retested(in));
  ASSERT_FALSE(r.suspects.empty()) << Failed(r);
  EXPECT_EQ(r.suspects[0].host, Address(6)) << Failed(r);
  EXPECT_NE(Evidence(r.suspects[0]).find("pairs phase latency (allreduce 4M, p99): slow with"), std::string::npos)
      << Evidence(r.suspects[0]);
  EXPECT_EQ(r.suspects[0].retest, Retest::kConfirmed) << r.suspects[0].confirmation;
  // Within the line (p99 1.5x the typical pair's against 2x): nothing.
  Cluster mild;
  mild.host_net_tail[6] = 1.5;
  const AcceptanceReport quiet = Judge(mild.Retested(mild.Input()));
  EXPECT_TRUE(quiet.suspects.empty()) << Failed(quiet);
}

TEST(LatencyJudgeTest, SlowLinkAtLatencyIsNamedAsALink) {
  Cluster c;
  // A pair that met in the first round, so that both ends met others too.
  const Pair link = RepairingRounds(c.hosts, 7, 7)[0][0];
  c.link_latency_us[link] = 400;
  c.rng.seed(1);
  AcceptanceReport r = Judge(c.Input());
  ASSERT_FALSE(r.suspects.empty()) << Failed(r);
  EXPECT_EQ(r.suspects[0].what, SuspectWhat::kLink) << Failed(r);
  EXPECT_EQ(r.suspects[0].reason, ReasonKind::kLink);
  EXPECT_EQ(r.suspects[0].host, Address(link.first));
  EXPECT_EQ(r.suspects[0].peer, Address(link.second));
  for (const AcceptanceSuspect& s : r.suspects) EXPECT_NE(s.what, SuspectWhat::kHost) << Failed(r);
}

// A pair whose ranks waited for a CPU (a busy core on one of its hosts while it ran) took 400 us more per op, as
// much as the slow link above; the wait explains it, so no link is named and a note says why.
TEST(LatencyJudgeTest, APairSlowedByWaitingForACpuIsANoteNotALink) {
  Cluster c;
  const Pair pair = RepairingRounds(c.hosts, 7, 7)[0][0];
  c.pair_cpu_wait_us[pair] = 400;
  c.rng.seed(1);
  AcceptanceReport r = Judge(c.Input());
  for (const AcceptanceSuspect& s : r.suspects) EXPECT_NE(s.what, SuspectWhat::kLink) << Failed(r);
  bool noted = false;
  for (const std::string& n : r.notes) {
    noted |= n.find("the pair " + Address(pair.first) + "-" + Address(pair.second)) != std::string::npos &&
             n.find("waited for a CPU") != std::string::npos && n.find("not the link") != std::string::npos;
  }
  EXPECT_TRUE(noted) << Failed(r);
  // A slow link whose ranks also waited a little (100 us of its 500 us extra) is still the link.
  Cluster d;
  d.link_latency_us[pair] = 400;
  d.pair_cpu_wait_us[pair] = 100;
  d.rng.seed(1);
  AcceptanceReport slow = Judge(d.Input());
  ASSERT_FALSE(slow.suspects.empty()) << Failed(slow);
  EXPECT_EQ(slow.suspects[0].what, SuspectWhat::kLink) << Failed(slow);
  EXPECT_EQ(slow.suspects[0].host, Address(pair.first));
  EXPECT_EQ(slow.suspects[0].peer, Address(pair.second));
}

// Every pair's ranks wait for a CPU most of their time (more ranks than cores): the pairs' 4K times are the
// scheduler's, so not even a pair 400 us slower is named, and a note says the latency was not judged.
TEST(LatencyJudgeTest, PairsWhoseRanksMostlyWaitForACpuAreNotJudgedAtLatency) {
  Cluster c;
  for (int a = 0; a < c.hosts; ++a) {
    for (int b = a + 1; b < c.hosts; ++b) c.pair_cpu_wait_us[{a, b}] = 100;  // 30 us latency, 100 us waiting
  }
  const Pair link = RepairingRounds(c.hosts, 7, 7)[0][0];
  c.link_latency_us[link] = 400;
  c.rng.seed(1);
  AcceptanceReport r = Judge(c.Input());
  for (const AcceptanceSuspect& s : r.suspects) {
    for (const std::string& e : s.evidence) EXPECT_EQ(e.find("latency"), std::string::npos) << Failed(r);
  }
  bool noted = false;
  for (const std::string& n : r.notes) noted |= n.find("pairs phase latency (allreduce 4K): not judged") == 0;
  EXPECT_TRUE(noted) << Failed(r);
}

TEST(LatencyJudgeTest, NoisyHealthyClusterNamesNoLatencySuspect) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    Cluster c;
    c.noise = 0.15;
    c.rng.seed(seed);
    AcceptanceReport r = Judge(c.Input());
    EXPECT_TRUE(r.suspects.empty()) << Failed(r);
  }
}

// A single size is a bandwidth size: no latency judgement.
TEST(LatencyJudgeTest, OneSizeProfileJudgesNoLatency) {
  Cluster c;
  c.host_latency_us[3] = 400;
  AcceptanceInput in = c.Input();
  in.profile.sizes = {kSmall};
  in.profile.floors.clear();
  in.profile.ceilings.clear();
  AcceptanceReport r = Judge(in);
  for (const AcceptanceSuspect& s : r.suspects) {
    EXPECT_EQ(Evidence(s).find("latency ("), std::string::npos) << Failed(r);
  }
}

}  // namespace
}  // namespace commbench::accept
