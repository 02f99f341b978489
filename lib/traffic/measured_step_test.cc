#include "lib/traffic/measured_step.h"

#include <gtest/gtest.h>

namespace commbench {
namespace traffic {
namespace {

StepTraffic TwoSizes() {  // 3 buckets of 1000 elements and 1 of 10 on two ranks, ring
  StepRequest r;
  r.backend = "native";
  r.model = TrafficModel::kNativeSchedules;
  r.params = 3010;
  r.element_size = 4;
  r.bucket_bytes = 4000;
  r.world = 2;
  r.algo_for = [](size_t) { return std::string("ring"); };
  auto step = ModelStep(r);
  EXPECT_TRUE(step.ok());
  return step.ok() ? *step : StepTraffic{};
}

TEST(MeasuredStep, SumsEachSizeTimesItsBuckets) {
  StepTraffic step = TwoSizes();
  ASSERT_EQ(step.groups.size(), 2u);
  std::vector<BucketMeasure> m(2);
  m[0] = {"ring", {4000, 4010}, {4000, 3990}, {100, 110}};
  m[1] = {"ring", {40, 40}, {40, 40}, {5, 6}};
  auto ranks = SumMeasuredStep(step, m, 2);
  ASSERT_TRUE(ranks.ok());
  EXPECT_DOUBLE_EQ((*ranks)[1].sent_bytes, 3 * 4010.0 + 40);
  EXPECT_DOUBLE_EQ((*ranks)[0].recv_bytes, 3 * 4000.0 + 40);
  EXPECT_NEAR((*ranks)[1].time_s, (3 * 110.0 + 6) * 1e-6, 1e-12);
  const std::string text =
      MeasuredStepToText(StepRequest{"native", TrafficModel::kNativeSchedules, 3010, 4, 4000, 2, nullptr}, step, m,
                         *ranks, {"native-tcp", "f32", "local ranks"});
  EXPECT_NE(text.find("3 x 4.000 kB"), std::string::npos) << text;
  EXPECT_NE(text.find("1.0025"), std::string::npos) << text;  // rank 1's sent over the model (12,040 B)
}

TEST(MeasuredStep, AnUnmeasuredSideStaysUnmeasured) {
  StepTraffic step = TwoSizes();
  std::vector<BucketMeasure> m(2);
  m[0] = {"ring", {-1, -1}, {4000, 4000}, {1, 1}};  // shared memory: received only
  m[1] = {"ring", {-1, -1}, {40, 40}, {1, 1}};
  auto ranks = SumMeasuredStep(step, m, 2);
  ASSERT_TRUE(ranks.ok());
  EXPECT_LT((*ranks)[0].sent_bytes, 0);
  EXPECT_DOUBLE_EQ((*ranks)[0].recv_bytes, 12040.0);
  m.pop_back();
  EXPECT_FALSE(SumMeasuredStep(step, m, 2).ok());
}

}  // namespace
}  // namespace traffic
}  // namespace commbench
