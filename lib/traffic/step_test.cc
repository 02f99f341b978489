#include "lib/traffic/step.h"

#include <gtest/gtest.h>

namespace commbench {
namespace traffic {
namespace {

TEST(Step, BucketsAndRemainderSumToTheGradient) {
  StepRequest r;
  r.backend = "native";
  r.model = TrafficModel::kNativeSchedules;
  r.params = 10'000'000;  // 20 MB of bf16 in 4 MiB buckets: 4 full and a remainder
  r.element_size = 2;
  r.bucket_bytes = 4 << 20;
  r.world = 8;
  r.algo_for = [](size_t) { return std::string("ring"); };
  auto step = ModelStep(r);
  ASSERT_TRUE(step.ok()) << step.status().message();
  ASSERT_EQ(step->groups.size(), 2u);
  EXPECT_EQ(step->groups[0].buckets, 4);
  EXPECT_EQ(step->groups[0].count * 4 + step->groups[1].count, 10'000'000u);
  EXPECT_EQ(step->gradient_bytes, 20'000'000u);
  // Ring: about 2(n-1)/n of the gradient per rank (blocks aligned to 16 elements move it by a little).
  const double ratio = static_cast<double>(step->ranks[0].sent_bytes) / (2.0 * 7 / 8 * 20'000'000);
  EXPECT_NEAR(ratio, 1.0, 0.001);
  EXPECT_TRUE(step->exact);
}

TEST(Step, BadBucketAndWorldNameTheValue) {
  StepRequest r;
  r.backend = "native";
  r.model = TrafficModel::kNativeSchedules;
  r.params = 100;
  r.bucket_bytes = 1;
  r.world = 2;
  auto bad = ModelStep(r);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("--bucket 1"), std::string::npos);
  r.bucket_bytes = 1024;
  r.world = 0;
  EXPECT_NE(ModelStep(r).status().message().find("--world 0"), std::string::npos);
}

}  // namespace
}  // namespace traffic
}  // namespace commbench
