// The pure parts of SPMD mode: group formation over hosts, and fitting a plan to the launcher's world.
#include "lib/launch/spmd.h"

#include <gtest/gtest.h>

namespace commbench {
namespace {

// Four hosts, two ranks each, placed cyclically (rank r on host r % 4), as `srun --distribution=cyclic` does.
const std::vector<std::string> kCyclic = {"h0", "h1", "h2", "h3", "h0", "h1", "h2", "h3"};
// The same, placed in blocks (srun's default): ranks 2h and 2h+1 on host h.
const std::vector<std::string> kBlock = {"h0", "h0", "h1", "h1", "h2", "h2", "h3", "h3"};

TEST(GroupOrder, ConsecutiveIsTheRankOrder) {
  EXPECT_EQ(GroupOrder(GroupBy::kConsecutive, kCyclic), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(GroupOrder, ByHostPutsEachHostsRanksTogether) {
  // Groups of 2 are then the hosts, whatever the placement.
  EXPECT_EQ(GroupOrder(GroupBy::kHost, kCyclic), (std::vector<int>{0, 4, 1, 5, 2, 6, 3, 7}));
  EXPECT_EQ(GroupOrder(GroupBy::kHost, kBlock), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(GroupOrder, SpreadPutsConsecutiveMembersOnDifferentHosts) {
  // Pairs (0,2) (4,6) (1,3) (5,7) over block placement: every pair spans two hosts.
  const std::vector<int> order = GroupOrder(GroupBy::kSpread, kBlock);
  EXPECT_EQ(order, (std::vector<int>{0, 2, 4, 6, 1, 3, 5, 7}));
  for (size_t p = 0; p + 1 < order.size(); p += 2) {
    EXPECT_NE(kBlock[static_cast<size_t>(order[p])], kBlock[static_cast<size_t>(order[p + 1])]);
  }
}

TEST(GroupOrder, OneHostLeavesTheOrderAlone) {
  const std::vector<std::string> one(4, "h0");
  for (GroupBy by : {GroupBy::kHost, GroupBy::kSpread}) EXPECT_EQ(GroupOrder(by, one), (std::vector<int>{0, 1, 2, 3}));
}

Launch MakeLaunch(int groups, int k) {
  Launch l;
  l.world = groups * k;
  Point p;
  p.groups = groups;
  p.group_size = k;
  l.points.push_back(p);
  return l;
}

TEST(FitPlanToWorld, DropsWhatNeedsMoreRanksInOneEntryAndNotesIdleRanks) {
  Plan plan;
  for (int g = 1; g <= 4; ++g) plan.launches.push_back(MakeLaunch(g, 2));
  std::vector<std::string> notes;
  ASSERT_TRUE(FitPlanToWorld(5, &plan, &notes).ok());
  ASSERT_EQ(plan.launches.size(), 2u);
  ASSERT_EQ(plan.skipped.size(), 1u);
  EXPECT_EQ(plan.skipped[0].what, "--groups 3-4");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0], "ranks 4-4 stay idle: the largest point needs 4 ranks");
}

TEST(FitPlanToWorld, RefusesWhatALauncherDecides) {
  Plan plan;
  plan.launches.push_back(MakeLaunch(1, 2));
  plan.launches[0].ranks_per_process = 2;
  std::vector<std::string> notes;
  Status s = FitPlanToWorld(2, &plan, &notes);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("--ranks-per-process 2"), std::string::npos);
  plan.launches[0].ranks_per_process = 1;
  plan.launches[0].cpus = "0";
  EXPECT_EQ(FitPlanToWorld(2, &plan, &notes).code(), StatusCode::kInvalidArgument);
}

TEST(FitPlanToWorld, TooSmallAWorldNamesWhatTheSmallestPointNeeds) {
  Plan plan;
  plan.launches.push_back(MakeLaunch(2, 4));
  std::vector<std::string> notes;
  Status s = FitPlanToWorld(4, &plan, &notes);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("smallest needs 8"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace commbench
