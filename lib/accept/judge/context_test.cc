// What the phases share (judge/context.cc): one suspect per host, link or rank, merged across phases.
#include "lib/accept/judge/context.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "lib/accept/judge/testing.h"

namespace commbench::accept {
namespace {

using namespace judge_testing;  // NOLINT: the synthetic cluster and report lookups

TEST(ContextTest, BisectionAndPairsMergeOneSuspect) {
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

TEST(ContextTest, RankSuspectAbsorbsItsHost) {
  Cluster c;
  const AcceptanceInput in = c.Input();  // Judging keeps a reference to it
  judge::Judging j(in);
  AcceptanceSuspect host;
  host.what = SuspectWhat::kHost;
  host.host = Address(2);
  host.score = 0.5;
  host.evidence = {"host evidence"};
  j.AddSuspect(host);
  AcceptanceSuspect rank;
  rank.what = SuspectWhat::kRank;
  rank.host = Address(2);
  rank.rank = 5;
  rank.score = 0.7;
  rank.evidence = {"rank evidence"};
  j.AddSuspect(rank);
  AcceptanceSuspect other = host;
  other.host = Address(3);
  j.AddSuspect(other);
  ASSERT_EQ(j.report.suspects.size(), 2u);
  const AcceptanceSuspect& s = j.report.suspects[0];
  EXPECT_EQ(s.what, SuspectWhat::kRank);
  EXPECT_EQ(s.rank, 5);
  EXPECT_DOUBLE_EQ(s.score, 0.7);
  EXPECT_EQ(s.evidence, (std::vector<std::string>{"rank evidence", "host evidence"}));
  EXPECT_EQ(j.report.suspects[1].host, Address(3));
}

// Plant: host 2 capped, beside a busy loop. Bandwidth named host 2 (failed with every partner); 4 KiB latency
// noise named the link 0-2 with a higher score. The link is host 2's slowness seen by one partner: one suspect,
// host 2, with both evidences, whichever came first.
TEST(ContextTest, AHostSuspectAbsorbsTheLinksThatTouchIt) {
  Cluster c;
  const AcceptanceInput in = c.Input();  // Judging keeps a reference to it
  AcceptanceSuspect host;
  host.what = SuspectWhat::kHost;
  host.host = Address(2);
  host.score = 0.88;
  host.evidence = {"bandwidth: host 2 failed with 3 of 3"};
  AcceptanceSuspect link;
  link.what = SuspectWhat::kLink;
  link.reason = ReasonKind::kLink;
  link.host = Address(0);
  link.peer = Address(2);
  link.score = 0.95;
  link.evidence = {"latency: the pair 0-2"};
  AcceptanceSuspect other_link = link;  // touches neither end's host suspect: stays
  other_link.host = Address(1);
  other_link.peer = Address(3);
  other_link.score = 0.5;
  for (bool host_first : {true, false}) {
    SCOPED_TRACE(host_first ? "host first" : "link first");
    judge::Judging j(in);
    j.AddSuspect(host_first ? host : link);
    j.AddSuspect(other_link);
    j.AddSuspect(host_first ? link : host);
    ASSERT_EQ(j.report.suspects.size(), 2u);
    const AcceptanceSuspect* h = nullptr;
    for (const AcceptanceSuspect& s : j.report.suspects) {
      if (s.what == SuspectWhat::kHost) h = &s;
    }
    ASSERT_NE(h, nullptr);
    EXPECT_EQ(h->host, Address(2));
    EXPECT_DOUBLE_EQ(h->score, 0.95);
    EXPECT_EQ(h->evidence.size(), 2u);
  }
}

TEST(ContextTest, PeaksAreTheBestPairAndHost) {
  Cluster c;
  const AcceptanceInput in = c.Input();  // Judging keeps a reference to it
  judge::Judging j(in);
  j.CollectPeaks();
  const auto key = std::make_pair(Collective::kAllreduce, kLarge);
  ASSERT_TRUE(j.peaks.best_pair.count(key));
  ASSERT_TRUE(j.peaks.best_host.count(key));
  EXPECT_NEAR(j.peaks.best_pair.at(key), 1.0, 0.1);  // the synthetic 1 GB/s network
  EXPECT_NEAR(j.peaks.best_host.at(key), 4.0, 0.4);  // 4 GB/s inside a host
}

}  // namespace
}  // namespace commbench::accept
