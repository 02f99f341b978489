// judge/confirm.cc: a suspect fails the cluster only once its re-test beside a control pair confirms it.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "lib/accept/judge/testing.h"
#include "lib/accept/verdict.h"

namespace commbench::accept {
namespace {

using judge_testing::Cluster;
using judge_testing::Failed;

const AcceptanceSuspect* SuspectOn(const AcceptanceReport& r, const std::string& host) {
  for (const AcceptanceSuspect& s : r.suspects) {
    if (s.host == host || s.peer == host) return &s;
  }
  return nullptr;
}

bool NoteHas(const AcceptanceReport& r, const std::string& text) {
  for (const std::string& n : r.notes) {
    if (n.find(text) != std::string::npos) return true;
  }
  return false;
}

// Confirmed: a capped host fails its re-test in every repeat and fails the cluster, saying how it was confirmed.
TEST(ConfirmTest, ASuspectThatFailsItsRetestIsConfirmed) {
  Cluster c;
  c.host_net[5] = 0.25;
  const AcceptanceReport r = Judge(c.Retested(c.Input()));
  EXPECT_FALSE(r.passed);
  const AcceptanceSuspect* s = SuspectOn(r, judge_testing::Address(5));
  ASSERT_NE(s, nullptr) << Failed(r);
  EXPECT_EQ(s->retest, Retest::kConfirmed) << s->confirmation;
  EXPECT_NE(
      s->confirmation.find("confirmed: re-tested beside a control pair of known-good hosts at the same "
                           "moment, by its bus bandwidth (allreduce 4M) it failed in 4 of 4 repeats over 4 round(s)"),
      std::string::npos)
      << s->confirmation;
  EXPECT_NE(std::find(s->evidence.begin(), s->evidence.end(), s->confirmation), s->evidence.end());
}

// Stays quiet: a suspect the localisation named from one bad spell (a link slow in the pairs phase only) passes
// its re-test and is left out of the verdict with a note; the cluster passes.
TEST(ConfirmTest, ASuspectItsRetestClearsIsLeftOut) {
  Cluster c;
  c.link_latency_us[{3, 5}] = 200;
  AcceptanceInput in = c.Input();
  ASSERT_NE(SuspectOn(Judge(in), judge_testing::Address(3)), nullptr) << "the localisation names the link";
  c.link_latency_us.clear();
  const AcceptanceReport r = Judge(c.Retested(in));
  EXPECT_TRUE(r.passed) << Failed(r);
  EXPECT_TRUE(r.suspects.empty());
  EXPECT_TRUE(NoteHas(r,
                      "the link 10.77.0.4-10.77.0.6: not confirmed, left out of the verdict: re-tested beside a "
                      "control pair of known-good hosts at the same moment, by its"));
}

// Intermittent: a host slow in spells of three rounds fails some re-test repeats and passes the others.
TEST(ConfirmTest, AHostSlowInSomeRoundsIsIntermittent) {
  Cluster c;
  c.host_net_flapping[2] = 0.2;
  AcceptanceInput in = c.Input();
  const AcceptanceReport before = Judge(in);
  ASSERT_NE(SuspectOn(before, judge_testing::Address(2)), nullptr) << Failed(before);
  const AcceptanceReport r = Judge(c.Retested(in));
  const AcceptanceSuspect* s = SuspectOn(r, judge_testing::Address(2));
  ASSERT_NE(s, nullptr) << Failed(r);
  EXPECT_EQ(s->retest, Retest::kIntermittent) << s->confirmation;
  EXPECT_EQ(s->reason, ReasonKind::kIntermittent);
  EXPECT_NE(s->confirmation.find("intermittent: re-tested beside a control pair"), std::string::npos);
  EXPECT_NE(s->confirmation.find("(round "), std::string::npos) << "the rounds it failed: " << s->confirmation;
  EXPECT_FALSE(r.passed);
}

// Ruled out and confirmed together: two faults of different kinds are both named and both confirmed, each with its
// own evidence and kind; a slow rank is named as the rank, with its host and pid.
TEST(ConfirmTest, EverySuspectKeepsItsOwnRetest) {
  Cluster c;
  c.host_net[5] = 0.25;
  c.host_latency_us[1] = 400;
  c.slow_rank = 13;  // host 6
  c.slow_factor = 3;
  const AcceptanceReport r = Judge(c.Retested(c.Input()));
  for (int h : {5, 1, 6}) {
    const AcceptanceSuspect* s = SuspectOn(r, judge_testing::Address(h));
    ASSERT_NE(s, nullptr) << h << "\n" << Failed(r);
    EXPECT_EQ(s->retest, Retest::kConfirmed) << h << ": " << s->confirmation;
  }
  const AcceptanceSuspect* rank = SuspectOn(r, judge_testing::Address(6));
  EXPECT_EQ(rank->what, SuspectWhat::kRank);
  EXPECT_EQ(rank->rank, 13);
  EXPECT_EQ(rank->pid, 4013);
  EXPECT_NE(rank->evidence.front().find("rank 13 on 10.77.0.7 (pid 4013)"), std::string::npos) << rank->evidence[0];
}

// Each figure that named a suspect is judged on its own repeats: a host named by its 4M bandwidth and its 4K
// latency, whose re-test finds only the latency still slow, is confirmed by the latency (4 of 4), not made
// intermittent by its passing 4M repeats (4 of 8 when counted together).
TEST(ConfirmTest, EachFigureIsJudgedOnItsOwnRepeats) {
  Cluster c;
  c.host_net[5] = 0.25;
  c.host_latency_us[5] = 400;
  AcceptanceInput in = c.Input();
  const AcceptanceReport first = Judge(in);
  const AcceptanceSuspect* named = SuspectOn(first, judge_testing::Address(5));
  ASSERT_NE(named, nullptr);
  std::set<Figure> figures;
  for (const SuspectBasis& b : named->found_by) figures.insert(b.figure);
  ASSERT_TRUE(figures.count(Figure::kBandwidth) && figures.size() >= 2) << Failed(first);
  c.host_net.clear();
  const AcceptanceReport r = Judge(c.Retested(in));
  const AcceptanceSuspect* s = SuspectOn(r, judge_testing::Address(5));
  ASSERT_NE(s, nullptr) << Failed(r);
  EXPECT_EQ(s->retest, Retest::kConfirmed) << s->confirmation;
  EXPECT_NE(s->confirmation.find("latency (allreduce 4K) it failed in 4 of 4 repeats"), std::string::npos)
      << s->confirmation;
  // And the other way: with the latency gone and the cap kept, the bandwidth confirms it.
  Cluster capped;
  capped.host_net[5] = 0.25;
  capped.host_latency_us[5] = 400;
  AcceptanceInput in2 = capped.Input();
  capped.host_latency_us.clear();
  const AcceptanceReport second = Judge(capped.Retested(in2));
  const AcceptanceSuspect* bw = SuspectOn(second, judge_testing::Address(5));
  ASSERT_NE(bw, nullptr);
  EXPECT_EQ(bw->retest, Retest::kConfirmed) << bw->confirmation;
  EXPECT_NE(bw->confirmation.find("by its bus bandwidth (allreduce 4M) it failed in 4 of 4"), std::string::npos)
      << bw->confirmation;
}

// Without a re-test (none ran, or the profile turns it off) a suspect fails unconfirmed, and says so.
TEST(ConfirmTest, ASuspectNotRetestedFailsUnconfirmed) {
  Cluster c;
  c.host_net[5] = 0.25;
  AcceptanceReport r = Judge(c.Input());
  const AcceptanceSuspect* s = SuspectOn(r, judge_testing::Address(5));
  ASSERT_NE(s, nullptr);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(s->retest, Retest::kNotRun);
  EXPECT_EQ(s->confirmation, "not re-tested (no re-test ran): it fails unconfirmed");

  AcceptanceInput off = c.Input();
  off.profile.confirm.rounds = 0;
  r = Judge(off);
  s = SuspectOn(r, judge_testing::Address(5));
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->confirmation, "");
  EXPECT_FALSE(r.passed);
}

// The re-test plan reads only the suspects, in host order: the command's plan and the judge's reading agree
// whatever order the suspects were ranked in.
TEST(ConfirmTest, TheTargetsDoNotDependOnTheSuspectsOrder) {
  AcceptanceSuspect a, b;
  a.host = judge_testing::Address(5);
  b.what = SuspectWhat::kLink;
  b.host = judge_testing::Address(1);
  b.peer = judge_testing::Address(3);
  std::vector<std::string> hosts;
  for (int h = 0; h < 8; ++h) hosts.push_back(judge_testing::Address(h));
  const auto ab = RetestTargetsOf({a, b}, hosts), ba = RetestTargetsOf({b, a}, hosts);
  ASSERT_EQ(ab.size(), 4u) << "host 5; the link 1-3 and each of its ends beside known-good partners";
  ASSERT_EQ(ba.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(ab[i].host, ba[i].host);
    EXPECT_EQ(ab[i].peer, ba[i].peer);
  }
  const std::vector<std::pair<int, int>> expected = {{1, -1}, {1, 3}, {3, -1}, {5, -1}};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(std::make_pair(ab[i].host, ab[i].peer), expected[i]) << i;
  }
}

// Fires: the localisation named a link (its pair was slow in the pairs phase); in the re-test the link fails again
// and so does one of its ends beside known-good partners, while the other end passes beside them: the fault follows
// that host (a host slow in spells meets them with one partner of the pairs phase), and the suspect is the host.
TEST(ConfirmTest, ALinkWhoseOneEndFailsWithOtherPartnersIsThatHost) {
  Cluster c;
  c.link_latency_us[{3, 5}] = 200;
  AcceptanceInput in = c.Input();
  const AcceptanceReport first = Judge(in);
  ASSERT_EQ(first.suspects.size(), 1u) << Failed(first);
  ASSERT_EQ(first.suspects[0].what, SuspectWhat::kLink) << Failed(first);
  c.link_latency_us.clear();
  c.host_latency_us[5] = 200;  // the re-test meets host 5 slow with every partner
  const AcceptanceReport r = Judge(c.Retested(in));
  EXPECT_FALSE(r.passed);
  ASSERT_EQ(r.suspects.size(), 1u) << Failed(r);
  const AcceptanceSuspect& s = r.suspects[0];
  EXPECT_EQ(s.what, SuspectWhat::kHost);
  EXPECT_EQ(s.host, judge_testing::Address(5));
  EXPECT_EQ(s.peer, "");
  EXPECT_NE(s.confirmation.find("the link 10.77.0.4-10.77.0.6 failed its re-test ("), std::string::npos)
      << s.confirmation;
  EXPECT_NE(s.confirmation.find("and 10.77.0.6 failed beside known-good partners too (by its"), std::string::npos)
      << s.confirmation;
  EXPECT_NE(s.confirmation.find("while 10.77.0.4 passed beside them ("), std::string::npos) << s.confirmation;
  EXPECT_NE(s.confirmation.find("the fault follows 10.77.0.6"), std::string::npos) << s.confirmation;
}

// Stays a link: a link slow in the re-test too, whose ends both pass beside known-good partners, is the link itself.
TEST(ConfirmTest, ALinkWhoseEndsPassWithOtherPartnersStaysTheLink) {
  Cluster c;
  c.link_latency_us[{3, 5}] = 200;
  const AcceptanceReport r = Judge(c.Retested(c.Input()));
  EXPECT_FALSE(r.passed);
  ASSERT_EQ(r.suspects.size(), 1u) << Failed(r);
  const AcceptanceSuspect& s = r.suspects[0];
  EXPECT_EQ(s.what, SuspectWhat::kLink);
  EXPECT_EQ(s.retest, Retest::kConfirmed) << s.confirmation;
  EXPECT_TRUE(std::any_of(s.evidence.begin(), s.evidence.end(), [](const std::string& e) {
    return e.find("both ends passed beside known-good partners too (10.77.0.4 by its") == 0 &&
           e.find("): the link itself") != std::string::npos;
  })) << Failed(r);
}

}  // namespace
}  // namespace commbench::accept
