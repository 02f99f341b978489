#include "lib/measure/arrival.h"

#include <gtest/gtest.h>

namespace commbench {
namespace {

using result::RankSamples;
using result::SkewMethod;

RankSamples Rank(const std::string& host, int64_t start_ns, std::vector<double> samples_us,
                 std::vector<int64_t> entry_ns) {
  RankSamples r;
  r.host = host;
  r.start_ns = start_ns;
  r.samples_us = std::move(samples_us);
  r.entry_ns = std::move(entry_ns);
  return r;
}

// A pair whose rank 1 arrives 2 ms late at every op: rank 0 waits inside it (2010 us), rank 1 transfers (10 us).
// The collective's own time is rank 1's, the skew the 2 ms between arrivals, read on the one clock.
TEST(ArrivalTest, ALateRankIsSkewNotTransfer) {
  const RankSamples early = Rank("h", 1000, {2010, 2010, 2010}, {0, 2100000, 4200000});
  const RankSamples late = Rank("h", 1000, {10, 10, 10}, {2000000, 4100000, 6200000});
  const GroupArrivals a = ComputeGroupArrivals({&early, &late});
  EXPECT_EQ(a.method, SkewMethod::kClock);
  EXPECT_EQ(a.transfer_us, (std::vector<double>{10, 10, 10}));
  EXPECT_EQ(a.skew_us, (std::vector<double>{2000, 2000, 2000}));
  EXPECT_EQ(a.last_member, 1);
  EXPECT_EQ(a.last_share, 1.0);
}

// Arrivals on one clock whatever each rank's own start: start_ns + entry_ns is the arrival.
TEST(ArrivalTest, ArrivalsAddEachRanksOwnStart) {
  const RankSamples a = Rank("h", 5000, {30, 40}, {0, 100000});
  const RankSamples b = Rank("h", 2000, {20, 50}, {4000, 102000});  // arrives at 6000 and 104000
  const GroupArrivals g = ComputeGroupArrivals({&a, &b});
  EXPECT_EQ(g.transfer_us, (std::vector<double>{20, 40}));
  EXPECT_EQ(g.skew_us, (std::vector<double>{1, 1}));
}

// A group across hosts has no one clock: the skew is the longest time inside less the shortest (the ranks of a
// synchronous collective leave it together), and the method says so. Likewise ranks that recorded no arrivals.
TEST(ArrivalTest, AcrossHostsTheSkewComesFromTheDurations) {
  const RankSamples a = Rank("h1", 0, {2010, 15}, {0, 5000000});
  const RankSamples b = Rank("h2", 999999999, {10, 30}, {0, 7});
  GroupArrivals g = ComputeGroupArrivals({&a, &b});
  EXPECT_EQ(g.method, SkewMethod::kDurations);
  EXPECT_EQ(g.transfer_us, (std::vector<double>{10, 15}));
  EXPECT_EQ(g.skew_us, (std::vector<double>{2000, 15}));
  EXPECT_EQ(g.last_member, 0);  // without a clock the last to arrive waited least: b, then a
  EXPECT_EQ(g.last_share, 0.5);
  const RankSamples c = Rank("h1", 0, {12, 12}, {});
  EXPECT_EQ(ComputeGroupArrivals({&a, &c}).method, SkewMethod::kDurations);
}

// Ranks' iterations align by index, over as many as the shortest rank has; one rank alone has no skew.
TEST(ArrivalTest, IterationsAlignOverTheShortestRank) {
  const RankSamples a = Rank("h", 0, {5, 6, 7}, {0, 10, 20});
  const RankSamples b = Rank("h", 0, {4, 8}, {1, 12});
  const GroupArrivals g = ComputeGroupArrivals({&a, &b});
  EXPECT_EQ(g.transfer_us, (std::vector<double>{4, 6}));
  EXPECT_EQ(g.skew_us, (std::vector<double>{0.001, 0.002}));
  const GroupArrivals alone = ComputeGroupArrivals({&a});
  EXPECT_EQ(alone.skew_us, (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(alone.transfer_us, (std::vector<double>{5, 6, 7}));
  EXPECT_EQ(alone.last_member, -1);
}

TEST(ArrivalTest, UnionCountsOverlapsOnce) {
  EXPECT_EQ(UnionLength({}), 0);
  EXPECT_EQ(UnionLength({{0, 10}}), 10);
  EXPECT_EQ(UnionLength({{0, 10}, {20, 30}}), 20);           // apart
  EXPECT_EQ(UnionLength({{0, 10}, {5, 15}}), 15);            // partial overlap
  EXPECT_EQ(UnionLength({{5, 15}, {0, 10}, {2, 3}}), 15);    // any order; one inside another
  EXPECT_EQ(UnionLength({{0, 10}, {10, 20}}), 20);           // touching
  EXPECT_EQ(UnionLength({{0, 10}, {30, 40}, {8, 32}}), 40);  // one bridging two
  EXPECT_EQ(UnionLength({{0, 10}, {4, 4}, {12, 11}}), 10);   // empty ones count nothing
}

// Two groups on one host, partly overlapping in time: the union counts their common time once.
TEST(ArrivalTest, BusyTimeIsTheUnionOfEveryRanksOpIntervals) {
  // Group 0 inside ops over [0, 100) and [200, 300) us; group 1 over [50, 150) us and [400, 450) us.
  std::vector<RankSamples> ranks = {
      Rank("h", 0, {100, 100}, {0, 200000}),
      Rank("h", 0, {90, 100}, {10000, 200000}),
      Rank("h", 50000, {100, 50}, {0, 350000}),
      Rank("h", 50000, {100, 40}, {0, 360000}),
  };
  // Union: [0, 150) + [200, 300) + [400, 450) = 300 us.
  const std::optional<double> busy = BusyUnionS(ranks);
  ASSERT_TRUE(busy.has_value());
  EXPECT_NEAR(*busy, 300e-6, 1e-12);
  ranks[3].host = "other";  // two clocks: no union
  EXPECT_FALSE(BusyUnionS(ranks).has_value());
  ranks[3].host = "h";
  ranks[3].entry_ns.clear();  // a rank without arrivals
  EXPECT_FALSE(BusyUnionS(ranks).has_value());
}

}  // namespace
}  // namespace commbench
