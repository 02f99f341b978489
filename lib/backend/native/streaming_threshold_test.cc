#include "lib/backend/native/streaming_threshold.h"

#include <gtest/gtest.h>

#include <cstddef>

namespace commbench {
namespace native {
namespace internal {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

TEST(StreamingThresholdTest, UnknownCacheGivesTheCap) {
  EXPECT_EQ(StreamingThresholdForL3(0), 32 * kMiB);
  EXPECT_EQ(StreamingThresholdForL3(-1), 32 * kMiB);
}

TEST(StreamingThresholdTest, SmallCacheGivesAThirdOfIt) {
  EXPECT_EQ(StreamingThresholdForL3(3), 1u);
  EXPECT_EQ(StreamingThresholdForL3(30 * 1024 * 1024), 10 * kMiB);
  EXPECT_EQ(StreamingThresholdForL3(96 * 1024 * 1024 - 3), 32 * kMiB - 1);
}

TEST(StreamingThresholdTest, LargeCacheIsCapped) {
  EXPECT_EQ(StreamingThresholdForL3(96 * 1024 * 1024), 32 * kMiB);
  EXPECT_EQ(StreamingThresholdForL3(480L * 1024 * 1024), 32 * kMiB);  // what a VM's sysconf said on the bench host
}

TEST(StreamingThresholdTest, ThisMachinesDefaultIsWithinTheBounds) {
  const size_t threshold = DefaultStreamingThreshold();
  EXPECT_GT(threshold, 0u);
  EXPECT_LE(threshold, kStreamingThresholdCap);
  EXPECT_EQ(StreamingThreshold().load(), threshold);  // nothing in this test changed the setting
}

}  // namespace
}  // namespace internal
}  // namespace native
}  // namespace commbench
