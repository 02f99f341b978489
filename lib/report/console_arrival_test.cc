#include "lib/report/console_arrival.h"

#include <gtest/gtest.h>

namespace commbench {
namespace {

TEST(ConsoleArrivalTest, NothingForPointsWithoutArrivals) { EXPECT_EQ(FormatArrivals({result::PointResult{}}), ""); }

TEST(ConsoleArrivalTest, OneLinePerPointWithBothAggregates) {
  result::PointResult p;
  p.point.backend = "gloo";
  p.point.groups = 3;
  p.point.bytes = 400;
  p.aggregate_busbw_gbps = 0.25;
  result::Arrival a;
  a.transfer_us = Summarize({30, 31, 32});
  a.skew_us = Summarize({2000, 2001, 2002});
  p.arrival = a;
  result::PointResult q = p;
  q.busy_time = result::BusyTime{0.1, 0.125, 0.125};
  q.arrival->method = result::SkewMethod::kDurations;
  const std::string text = FormatArrivals({p, q});
  EXPECT_NE(text.find("# Transfer and arrival"), std::string::npos) << text;
  EXPECT_NE(text.find(" gloo               400    3         31.0"), std::string::npos) << text;
  EXPECT_NE(text.find("2001.0"), std::string::npos) << text;
  EXPECT_NE(text.find("clock        0.25           -\n"), std::string::npos) << text;
  EXPECT_NE(text.find("durations        0.25       0.125\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace commbench
