// A host slow in spells (judge/spells.cc): named as intermittent where its spells cover under half of its pair
// samples (the pair medians Localize reads pass it), quiet on a healthy cluster, on one whose every pair has a slow
// sample now and then, and on a host slow in one round only.
#include <gtest/gtest.h>

#include "lib/accept/judge/testing.h"

namespace commbench::accept {
namespace {

using namespace judge_testing;  // NOLINT: the synthetic cluster and report lookups

bool NamedInSpells(const AcceptanceReport& r) {
  for (const AcceptanceSuspect& s : r.suspects) {
    for (const std::string& e : s.evidence) {
      if (e.find("slow in spells") != std::string::npos) return true;
    }
  }
  return false;
}

// Host 5's 4M p99 is 2.5x in a third of its network points (the cluster phase's first), two repeats a round: no
// pair's median reaches the 2x line, 4 of its 14 samples do, against none of the other pairs'.
TEST(SpellsJudgeTest, AHostSlowInSpellsIsAnIntermittentSuspect) {
  Cluster c;
  c.pair_repeats = 2;
  c.host_net_spells[5] = 2.5;
  const AcceptanceReport r = Judge(c.Input());
  ASSERT_EQ(r.suspects.size(), 1u) << Failed(r);
  const AcceptanceSuspect& s = r.suspects[0];
  EXPECT_EQ(s.host, Address(5)) << Failed(r);
  EXPECT_EQ(s.reason, ReasonKind::kIntermittent);
  ASSERT_FALSE(s.evidence.empty());
  EXPECT_NE(s.evidence[0].find("pairs phase (allreduce 4M, p99): slow in spells: 4 of its 14 pair samples were above"),
            std::string::npos)
      << s.evidence[0];
  EXPECT_NE(s.evidence[0].find("in round 2, 3, 5, 6 of 7"), std::string::npos) << s.evidence[0];
  ASSERT_EQ(s.found_by.size(), 1u);
  EXPECT_EQ(s.found_by[0].figure, Figure::kP99);

  // Its re-test by the same figure: it fails in some repeats and passes in the others.
  Cluster again;
  again.pair_repeats = 2;
  again.host_net_spells[5] = 2.5;
  const AcceptanceReport retested = Judge(again.Retested(again.Input()));
  ASSERT_EQ(retested.suspects.size(), 1u) << Failed(retested);
  EXPECT_EQ(retested.suspects[0].retest, Retest::kIntermittent) << retested.suspects[0].confirmation;
  EXPECT_EQ(retested.suspects[0].reason, ReasonKind::kIntermittent);
  EXPECT_EQ(retested.ExitCode(), 1);
}

TEST(SpellsJudgeTest, AHealthyClusterNamesNoOne) {
  for (uint64_t seed : {1, 2, 3, 4, 5}) {
    Cluster c;
    c.pair_repeats = 2;
    c.noise = 0.1;
    c.rng.seed(seed);
    const AcceptanceReport r = Judge(c.Input());
    EXPECT_FALSE(NamedInSpells(r)) << "seed " << seed << "\n" << Failed(r);
  }
}

// Every pair's p99 tripled in one sample of eight, whoever is in it: some host always has two or three, as often
// as the others' rate says.
TEST(SpellsJudgeTest, SlowSamplesSpreadOverEveryPairNameNoOne) {
  for (uint64_t seed : {1, 2, 3, 4, 5, 6, 7, 8}) {
    Cluster c;
    c.pair_repeats = 2;
    c.tail_bursts = 0.125;
    c.rng.seed(seed);
    const AcceptanceReport r = Judge(c.Input());
    EXPECT_FALSE(NamedInSpells(r)) << "seed " << seed << "\n" << Failed(r);
  }
}

// Host 5's p99 2.5x in both repeats of its first pairs round only: a moment, not spells. In two rounds: spells.
TEST(SpellsJudgeTest, OneSlowRoundIsAMomentNotSpells) {
  for (int slow_rounds : {1, 2}) {
    Cluster c;
    c.pair_repeats = 2;
    AcceptanceInput in = c.Input();
    for (PhaseResult& ph : in.phases) {
      if (ph.phase != Phase::kPairs || ph.round > slow_rounds) continue;
      for (result::PointResult& pt : ph.points) {
        if (pt.point.bytes != kLarge) continue;
        int group = -1;
        for (const result::RankTime& r : pt.per_rank) {
          if (r.address == Address(5)) group = r.group;
        }
        for (result::RankTime& r : pt.per_rank) {
          if (r.group == group) r.time_us.p99 *= 2.5;
        }
      }
    }
    const AcceptanceReport r = Judge(in);
    EXPECT_EQ(NamedInSpells(r), slow_rounds == 2) << slow_rounds << " round(s)\n" << Failed(r);
  }
}

}  // namespace
}  // namespace commbench::accept
