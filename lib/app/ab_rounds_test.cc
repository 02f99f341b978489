#include "lib/app/ab_rounds.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace commbench::app {
namespace {

Launch LaunchOf(int world, const std::string& cpus, const std::vector<int64_t>& sizes) {
  Launch l;
  l.world = world;
  l.cpus = cpus;
  for (int64_t bytes : sizes) {
    Point p;
    p.bytes = bytes;
    l.points.push_back(p);
  }
  return l;
}

// The launches as "world/cpus:sizes", e.g. "2/:1,2".
std::vector<std::string> Shape(const Plan& plan) {
  std::vector<std::string> out;
  for (const Launch& l : plan.launches) {
    std::string s = std::to_string(l.world) + "/" + l.cpus + ":";
    for (size_t i = 0; i < l.points.size(); ++i) s += (i ? "," : "") + std::to_string(l.points[i].bytes);
    out.push_back(s);
  }
  return out;
}

TEST(AlternatingRounds, RunsForwardThenBackwardAndMergesTheLaunchesAtEachTurn) {
  Plan plan;
  plan.launches = {LaunchOf(2, "", {1, 2}), LaunchOf(2, "0", {3}), LaunchOf(16, "", {1, 2}), LaunchOf(16, "0", {3})};
  const Plan rounds = AlternatingRounds(plan, 3);
  // A B | B A | A B: the last launch of a round and the first of the next are one launch.
  EXPECT_EQ(Shape(rounds), (std::vector<std::string>{"2/:1,2", "2/0:3", "16/:1,2", "16/0:3,3", "16/:2,1", "2/0:3",
                                                     "2/:2,1,1,2", "2/0:3", "16/:1,2", "16/0:3"}));
  size_t points = 0;
  for (const Launch& l : rounds.launches) points += l.points.size();
  EXPECT_EQ(points, 3 * plan.point_count());  // every point once a round
}

TEST(AlternatingRounds, OneRoundIsThePlanAndDifferentPinningIsNeverMerged) {
  Plan plan;
  plan.launches = {LaunchOf(2, "", {1}), LaunchOf(2, "", {2})};
  plan.launches[1].pin = Pin::kCompact;
  EXPECT_EQ(Shape(AlternatingRounds(plan, 1)), (std::vector<std::string>{"2/:1", "2/:2"}));
  EXPECT_EQ(AlternatingRounds(plan, 2).launches.size(), 3u);  // the turn merges the two launches of point 2 only
}

TEST(RoundSpec, TakesItsShareOfTheLoopAboveAFloor) {
  SweepSpec spec;
  spec.time_budget_s = 0.3;
  spec.min_iters = 20;
  spec.warmup = 5;
  const SweepSpec third = RoundSpec(spec, 1.0 / 3);
  EXPECT_DOUBLE_EQ(third.time_budget_s, 0.1);
  EXPECT_EQ(third.min_iters, 7);
  EXPECT_EQ(third.warmup, 2);
  spec.min_iters = 2;
  spec.warmup = 0;
  spec.iters = 50;
  const SweepSpec tiny = RoundSpec(spec, 0.1);
  EXPECT_EQ(tiny.min_iters, 2);
  EXPECT_EQ(tiny.warmup, 0);
  EXPECT_EQ(tiny.iters, 50);
  EXPECT_DOUBLE_EQ(RoundSpec(spec, 1).time_budget_s, spec.time_budget_s);
  // A short budget keeps its floor: 0.09 s a third is 0.03 s, under kMinRoundBudgetS; 0.02 s stays 0.02 s.
  spec.time_budget_s = 0.09;
  EXPECT_DOUBLE_EQ(RoundSpec(spec, 1.0 / 3).time_budget_s, kMinRoundBudgetS);
  spec.time_budget_s = 0.02;
  EXPECT_DOUBLE_EQ(RoundSpec(spec, 1.0 / 3).time_budget_s, 0.02);
  // A longer budget for large points takes its share too.
  spec.time_budget_above = {{1 << 20, 0.6}};
  EXPECT_DOUBLE_EQ(RoundSpec(spec, 1.0 / 3).time_budget_above.at(1 << 20), 0.2);
}

}  // namespace
}  // namespace commbench::app
