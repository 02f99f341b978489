// The host verdicts (judge/hosts.cc): suspects ranked and listed, skew evidence, each host's verdict.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "lib/accept/judge/testing.h"

namespace commbench::accept {
namespace {

using namespace judge_testing;  // NOLINT: the synthetic cluster and report lookups

TEST(HostsJudgeTest, LinkEndsFailTheirVerdicts) {
  Cluster c;
  const Pair slow = RepairingRounds(8, 7, 7)[2][1];
  c.link[slow] = 0.25;
  AcceptanceReport r = Judge(c.Input());
  const std::string link = Address(slow.first) + "-" + Address(slow.second);
  const Check* listed = Find(r, "suspect link", Address(slow.first));
  ASSERT_NE(listed, nullptr) << Failed(r);
  EXPECT_FALSE(listed->passed);
  EXPECT_EQ(listed->reason.rfind(link + ": pairs phase", 0), 0u) << listed->reason;
  const HostVerdict& peer = r.hosts[static_cast<size_t>(slow.second)];
  EXPECT_FALSE(peer.passed);
  EXPECT_EQ(peer.reasons, (std::vector<std::string>{"one end of the suspect link " + link}));
  EXPECT_GT(peer.partners, 0);
  EXPECT_GT(peer.pair_busbw_gbps, 0);
}

TEST(HostsJudgeTest, HostSuspectGetsArrivalSkewEvidence) {
  Cluster c;
  c.host_net[3] = 0.25;
  AcceptanceReport r = Judge(c.Input());
  ASSERT_EQ(r.suspects.size(), 1u) << Failed(r);
  EXPECT_EQ(r.suspects[0].evidence.back().rfind("arrival skew: ", 0), 0u) << r.suspects[0].evidence.back();
  // Suspects listed as failed checks, most likely first, then every host's verdict.
  const Check* listed = Find(r, "suspect host", Address(3));
  ASSERT_NE(listed, nullptr);
  EXPECT_DOUBLE_EQ(listed->measured, r.suspects[0].score);
  EXPECT_EQ(r.hosts.size(), 8u);
}

TEST(HostsJudgeTest, HostInNoPointFailsClosed) {
  Cluster c;
  AcceptanceInput in = c.Input();
  in.expected_hosts.push_back("10.77.0.99");  // expected, never measured
  AcceptanceReport r = Judge(in);
  const Check* measured = Find(r, "host measured", "10.77.0.99");
  ASSERT_NE(measured, nullptr);
  EXPECT_FALSE(measured->passed);
  EXPECT_EQ(measured->reason, "10.77.0.99: took part in no measured point (fails closed)");
  ASSERT_EQ(r.hosts.size(), 9u);
  EXPECT_FALSE(r.hosts[8].passed);
  EXPECT_EQ(r.hosts[8].points, 0);
  EXPECT_FALSE(r.passed);
}

TEST(HostsJudgeTest, HealthyHostsPass) {
  Cluster c;
  AcceptanceReport r = Judge(c.Input());
  ASSERT_EQ(r.hosts.size(), 8u);
  for (const HostVerdict& h : r.hosts) {
    EXPECT_TRUE(h.passed) << h.host;
    EXPECT_TRUE(h.reasons.empty()) << h.host;
    EXPECT_EQ(h.points, 18) << h.host;  // 2 cluster, 2 host, 7 x 2 pairs points
  }
  EXPECT_TRUE(r.passed);
}

}  // namespace
}  // namespace commbench::accept
