// The assembler (verdict.cc): pre-flight, the phases the profile asks for through their judges, a phase that did
// not run, and the verdict of the whole. Each phase's own judgement is tested beside its file in judge/.
#include "lib/accept/verdict.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "lib/accept/judge/phases.h"
#include "lib/accept/judge/testing.h"

namespace commbench::accept {
namespace {

using namespace judge_testing;  // NOLINT: the synthetic cluster and report lookups

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
  EXPECT_NEAR(floor->measured, 1.0, 0.1);  // docs/design.md §5 busbw of the synthetic 1 GB/s network
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

// A rank suspect alone and clear is the answer once it rests on two points; slow at one point only, the next
// phase decides.
TEST(VerdictTest, ARankSlowAtOnePointOnlyIsNotACleanAnswer) {
  AcceptanceReport r;
  AcceptanceSuspect s;
  s.what = SuspectWhat::kRank;
  s.host = "10.0.0.5";
  s.rank = 4;
  s.score = 0.64;
  s.points = 1;
  r.suspects.push_back(s);
  r.hosts_compared = true;  // the pairs phase ran: the other hosts met over the network
  EXPECT_FALSE(CleanAnswer(r));
  r.suspects[0].points = 2;
  EXPECT_TRUE(CleanAnswer(r));
  r.suspects[0].what = SuspectWhat::kHost;  // hosts and links count no points
  r.suspects[0].points = 0;
  EXPECT_TRUE(CleanAnswer(r));
}

// A clear suspect is not the whole answer until the other hosts were compared at every figure (pairs; bisection
// judges busbw only), nor while a host it does not name failed a check or met only it: each may be a second fault.
TEST(VerdictTest, AClearSuspectEndsTheSearchOnlyOnceTheRestPassed) {
  AcceptanceReport r;
  AcceptanceSuspect s;
  s.host = "10.0.0.5";
  s.score = 0.7;
  r.suspects.push_back(s);
  EXPECT_FALSE(CleanAnswer(r)) << "the cluster and host phases alone";
  r.hosts_compared = true;
  EXPECT_TRUE(CleanAnswer(r));
  Check other;
  other.host = "10.0.0.2";
  other.name = "host allreduce 4K latency p50";
  r.checks.push_back(other);
  EXPECT_FALSE(CleanAnswer(r)) << "another host's failed check";
  r.checks[0].host = "";
  EXPECT_TRUE(CleanAnswer(r)) << "a cluster-wide check the suspect can explain";
  // Nor while a host met only suspects in the pairs: its pair's slowness went to the suspect it met, and may be its
  // own (the virtual cluster: a capped host's one partner was a latency-slow host, and only the latter was named).
  PairMatrix m;
  m.hosts = {"10.0.0.5", "h1", "h2", "h3"};
  m.rounds.assign(4, std::vector<int>(4, 0));
  auto meet = [&m](int a, int b) { m.rounds[a][b] = m.rounds[b][a] = 1; };
  meet(0, 1);
  meet(2, 3);
  r.pair_matrices = {m};
  EXPECT_FALSE(CleanAnswer(r)) << "h1 met the suspect only";
  meet(1, 2);
  r.pair_matrices = {m};
  EXPECT_TRUE(CleanAnswer(r)) << "h1 met h2 too";
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

TEST(VerdictTest, EveryPhaseHasAJudgeInRunOrder) {
  const auto& judges = judge::PhaseJudges();
  ASSERT_EQ(judges.size(), AllPhases().size());
  for (size_t i = 0; i < judges.size(); ++i) {
    EXPECT_EQ(judges[i].phase, AllPhases()[i]);
    EXPECT_EQ(std::string(judges[i].file), std::string(Name(judges[i].phase)) + ".cc");
    EXPECT_NE(judges[i].judge, nullptr);
    EXPECT_EQ(judge::FindPhaseJudge(judges[i].phase), &judges[i]);
  }
}

TEST(VerdictTest, ResultsOfAPhaseNotAskedForAreLeftOut) {
  Cluster c;
  c.host_net[3] = 0.25;  // would be named by the pairs phase
  AcceptanceInput in = c.Input();
  in.profile.phases = {Phase::kCluster};
  AcceptanceReport r = Judge(in);
  EXPECT_EQ(Find(r, "pairs rounds"), nullptr);
  EXPECT_EQ(Find(r, "host allreduce 4M", Address(0)), nullptr);
  std::set<std::string> notes(r.notes.begin(), r.notes.end());
  EXPECT_TRUE(notes.count("pairs phase: results given but the profile does not ask for it; left out"));
  EXPECT_TRUE(notes.count("host phase: results given but the profile does not ask for it; left out"));
  for (const AcceptanceSuspect& s : r.suspects) {
    for (const std::string& e : s.evidence) EXPECT_EQ(e.find("pairs phase"), std::string::npos) << e;
  }
}

}  // namespace
}  // namespace commbench::accept
