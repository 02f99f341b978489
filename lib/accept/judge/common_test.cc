// What the judges share (judge/common.cc): numbers as sentences print them, group figures, floor limits.
#include "lib/accept/judge/common.h"

#include <gtest/gtest.h>

#include <cmath>

namespace commbench::accept::judge {
namespace {

TEST(CommonTest, NumbersAsSentencesPrintThem) {
  EXPECT_EQ(Num(0.23448), "0.234");
  EXPECT_EQ(Num(kNaN), "n/a");
  EXPECT_EQ(Gbps(1), "1 GB/s");
  EXPECT_EQ(Percent(0.254), "25%");
  EXPECT_EQ(Percent(kNaN), "n/a");
  EXPECT_EQ(What(Phase::kPairs, Collective::kAllreduce, 4 << 20), "pairs allreduce 4M");
  EXPECT_EQ(RepeatNote(2, 2), "in 2 repeats");
  EXPECT_EQ(RepeatNote(1, 3), "in 1 of the 3 repeats the profile asks for");
  EXPECT_DOUBLE_EQ(Median({3, 1, 2, 4}), 2.5);
  EXPECT_TRUE(std::isnan(Median({})));
  EXPECT_DOUBLE_EQ(Max({1, kNaN, 3}), 3);
  EXPECT_DOUBLE_EQ(Min({kNaN, 2, 1}), 1);
  EXPECT_TRUE(std::isnan(Max({kNaN})));
}

TEST(CommonTest, GroupBusbwFromItsOwnTime) {
  result::PointResult p;
  p.point.op = Collective::kAllreduce;
  p.point.bytes = 1 << 20;
  p.point.group_size = 4;
  result::GroupTime g;
  g.p50_us = 1000;
  // No point busbw: docs/design.md §5's formula, 2 (n-1)/n bytes per second.
  EXPECT_NEAR(GroupBusbw(p, g), (1 << 20) / 1e6 * 1.5, 1e-9);
  // With one: scaled by the group's time against the point's.
  p.busbw_gbps = 2;
  p.time_us.p50 = 500;
  EXPECT_DOUBLE_EQ(GroupBusbw(p, g), 1);
  g.p50_us = 0;
  EXPECT_TRUE(std::isnan(GroupBusbw(p, g)));
  // Groups inside a size's rounding match it.
  EXPECT_TRUE(Matches(p, Collective::kAllreduce, (1 << 20) + 8));
  EXPECT_FALSE(Matches(p, Collective::kAllgather, 1 << 20));
}

TEST(CommonTest, FloorLimits) {
  Floor declared;
  declared.bytes = 1 << 20;
  declared.busbw_gbps = 0.3;
  declared.source = "vendor";
  Peaks peaks;
  Limit l = FloorLimit(declared, Collective::kAllreduce, peaks);
  EXPECT_DOUBLE_EQ(l.value, 0.3);
  EXPECT_EQ(l.what, "declared (vendor)");
  EXPECT_EQ(FloorName(declared), "busbw floor");
  Floor relative;
  relative.bytes = 1 << 20;
  relative.fraction = 0.5;
  relative.of = PeakOf::kBestPair;
  l = FloorLimit(relative, Collective::kAllreduce, peaks);
  EXPECT_TRUE(std::isnan(l.value));
  EXPECT_EQ(l.missing, "no best_pair peak was measured (the pairs phase has no point at this op and size)");
  peaks.best_pair[{Collective::kAllreduce, 1 << 20}] = 2;
  l = FloorLimit(relative, Collective::kAllreduce, peaks);
  EXPECT_DOUBLE_EQ(l.value, 1);
  EXPECT_EQ(l.what, "0.5 x best_pair 2 GB/s");
  EXPECT_EQ(FloorName(relative), "busbw floor 0.5xbest_pair");
  EXPECT_TRUE(Applies(std::nullopt, std::nullopt, Phase::kHost, Collective::kAllreduce));
  EXPECT_FALSE(Applies(Phase::kPairs, std::nullopt, Phase::kHost, Collective::kAllreduce));
}

}  // namespace
}  // namespace commbench::accept::judge
