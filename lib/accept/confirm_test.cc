#include "lib/accept/confirm.h"

#include <gtest/gtest.h>

#include <set>

namespace commbench::accept {
namespace {

// Every round: each target once, a control pair of hosts no target names, no host in two pairs.
void ExpectWellFormed(const RetestPlan& plan, const std::vector<RetestTarget>& targets) {
  std::set<int> suspect;
  for (const RetestTarget& t : targets) {
    suspect.insert(t.host);
    if (t.peer >= 0) suspect.insert(t.peer);
  }
  for (const RetestRound& r : plan.rounds) {
    ASSERT_EQ(r.pairs.size(), r.target_of_pair.size());
    ASSERT_EQ(r.target_of_pair.back(), -1) << "the control pair comes last";
    EXPECT_FALSE(suspect.count(r.pairs.back().first) || suspect.count(r.pairs.back().second));
    std::set<int> used;
    for (size_t i = 0; i < r.pairs.size(); ++i) {
      const Pair& p = r.pairs[i];
      EXPECT_LT(p.first, p.second);
      EXPECT_TRUE(used.insert(p.first).second && used.insert(p.second).second) << "a host in two pairs of a round";
      if (r.target_of_pair[i] < 0) continue;
      const RetestTarget& t = targets[static_cast<size_t>(r.target_of_pair[i])];
      EXPECT_TRUE(p.first == t.host || p.second == t.host);
      if (t.peer >= 0) {
        EXPECT_TRUE(p.first == t.peer || p.second == t.peer) << "a link is re-tested as itself";
      } else {
        EXPECT_FALSE(suspect.count(p.first == t.host ? p.second : p.first)) << "a known-good partner";
      }
    }
  }
}

TEST(PlanRetestsTest, EachRoundTestsEverySuspectBesideAControlPair) {
  const std::vector<RetestTarget> targets = {{2, 6}, {5, -1}};
  const RetestPlan plan = PlanRetests(8, targets, 4, 16, 1);
  ASSERT_EQ(plan.rounds.size(), 4u);
  ExpectWellFormed(plan, targets);
  for (const std::string& w : plan.why_not) EXPECT_EQ(w, "");
  std::set<Pair> controls;
  for (const RetestRound& r : plan.rounds) controls.insert(r.pairs.back());
  EXPECT_GT(controls.size(), 1u) << "the control rotates over the rounds";
}

TEST(PlanRetestsTest, TargetsThatShareAHostGoToRoundsOfTheirOwn) {
  const std::vector<RetestTarget> targets = {{0, 1}, {0, 2}, {4, -1}};
  const RetestPlan plan = PlanRetests(8, targets, 3, 100, 1);
  EXPECT_EQ(plan.rounds.size(), 6u) << "two batches (host 0 cannot be in two pairs of a round), 3 rounds each";
  ExpectWellFormed(plan, targets);
}

TEST(PlanRetestsTest, SaysWhyWhereTooFewKnownGoodHostsOrLaunchesAreLeft) {
  RetestPlan plan = PlanRetests(3, {{0, 1}}, 4, 16, 1);
  EXPECT_TRUE(plan.rounds.empty());
  EXPECT_EQ(plan.why_not[0], "1 known-good host(s) outside the suspects: a re-test needs 2 for its control");

  plan = PlanRetests(4, {{0, -1}, {1, -1}}, 4, 16, 1);  // hosts 2 and 3 are the control, no partner is left
  EXPECT_TRUE(plan.rounds.empty());
  EXPECT_EQ(plan.why_not[0], "a host's re-test needs 3 known-good hosts (a partner and a control pair)");

  plan = PlanRetests(5, {{0, -1}, {1, -1}}, 4, 16, 1);  // one partner a round: the two hosts take turns
  EXPECT_EQ(plan.rounds.size(), 8u);
  plan = PlanRetests(5, {{0, -1}, {1, -1}}, 4, 5, 1);
  EXPECT_EQ(plan.rounds.size(), 5u);
  EXPECT_EQ(plan.why_not[0], "");
}

}  // namespace
}  // namespace commbench::accept
