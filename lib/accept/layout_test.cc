#include "lib/accept/layout.h"

#include <gtest/gtest.h>

namespace commbench::accept {
namespace {

// Four hosts with two ranks each, placed cyclically (rank r on host r % 4).
const std::vector<std::string> kCyclic = {"a", "b", "c", "d", "a", "b", "c", "d"};

TEST(Layout, HostsInOrderOfTheirLowestRank) {
  Hosts h = HostsOf(kCyclic);
  EXPECT_EQ(h.names, (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_EQ(h.ranks[1], (std::vector<int>{1, 5}));
  EXPECT_EQ(h.ranks_per_host(), 2);
}

TEST(Layout, ClusterIsOneGroupOfEveryRank) {
  Layout l = ClusterLayout(HostsOf(kCyclic));
  EXPECT_EQ(l.groups, 1);
  EXPECT_EQ(l.group_size, 8);
  EXPECT_EQ(l.order, (std::vector<int>{0, 4, 1, 5, 2, 6, 3, 7}));
}

TEST(Layout, HostIsOneGroupPerHost) {
  auto l = HostLayout(HostsOf(kCyclic));
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->phase, "host");
  EXPECT_EQ(l->groups, 4);
  EXPECT_EQ(l->group_size, 2);
  EXPECT_EQ(l->order, (std::vector<int>{0, 4, 1, 5, 2, 6, 3, 7}));  // group g = host g's ranks
}

TEST(Layout, PairsPutBothHostsRanksInOneGroup) {
  auto l = PairLayout(HostsOf(kCyclic), {{0, 2}, {1, 3}}, 2);
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->phase, "pairs-2");
  EXPECT_EQ(l->groups, 2);
  EXPECT_EQ(l->group_size, 4);
  EXPECT_EQ(l->order, (std::vector<int>{0, 4, 2, 6, 1, 5, 3, 7}));
  // An odd host out is idle: three hosts, one pair.
  auto odd = PairLayout(HostsOf({"a", "b", "c"}), {{0, 2}}, 1);
  ASSERT_TRUE(odd.ok());
  EXPECT_EQ(odd->order, (std::vector<int>{0, 2}));
}

TEST(Layout, BlocksOfABisectionLevel) {
  // Five hosts of two ranks each, placed cyclically: level 2 cuts [1, 2] and [3, 4], host 0 sits out.
  std::vector<std::string> five;
  for (int r = 0; r < 10; ++r) five.push_back(std::string(1, static_cast<char>('a' + r % 5)));
  const Hosts hosts = HostsOf(five);
  auto l = BlockLayout(hosts, BisectionLevels(5)[1]);
  ASSERT_TRUE(l.ok()) << l.status().message();
  EXPECT_EQ(l->phase, "bisect-2");
  EXPECT_EQ(l->groups, 2);
  EXPECT_EQ(l->group_size, 4);
  EXPECT_EQ(l->order, (std::vector<int>{1, 6, 2, 7, 3, 8, 4, 9}));  // ranks 0 and 5 (host a) idle
  // The shifted cut of four hosts wraps around: its block [d, a] holds host d's ranks first.
  auto shifted = BlockLayout(HostsOf(kCyclic), BisectionLevels(4).back());
  ASSERT_TRUE(shifted.ok());
  EXPECT_EQ(shifted->order, (std::vector<int>{1, 5, 2, 6, 3, 7, 0, 4}));
  BisectLevel uneven;
  uneven.blocks = {{0, 1}, {2}};
  EXPECT_EQ(BlockLayout(HostsOf(kCyclic), uneven).status().code(), StatusCode::kInvalidArgument);
}

TEST(Layout, UnevenHostsAndBadPairsAreNamed) {
  auto uneven = HostLayout(HostsOf({"a", "a", "b"}));
  ASSERT_FALSE(uneven.ok());
  EXPECT_NE(uneven.status().message().find("host b has 1 ranks"), std::string::npos) << uneven.status().message();
  auto bad = PairLayout(HostsOf(kCyclic), {{0, 9}}, 1);
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  auto twice = PairLayout(HostsOf(kCyclic), {{0, 1}, {1, 2}}, 1);
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.status().message(), "group (1, 2) is not 2 distinct hosts of the 4 that no other group holds");
}

}  // namespace
}  // namespace commbench::accept
