#include "lib/core/half.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace commbench {
namespace {

TEST(HalfTest, KnownEncodings) {
  EXPECT_EQ(FloatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(FloatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7bff);
  EXPECT_EQ(FloatToHalf(1e6f), 0x7c00);
  EXPECT_EQ(FloatToHalf(5.9604644775390625e-8f), 0x0001);  // smallest subnormal
  EXPECT_EQ(FloatToHalf(0.0f), 0x0000);
  EXPECT_TRUE(std::isnan(HalfToFloat(FloatToHalf(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_TRUE(std::isinf(HalfToFloat(FloatToHalf(std::numeric_limits<float>::infinity()))));
}

TEST(HalfTest, RoundsToNearestEven) {
  // 2049 lies halfway between the halves 2048 and 2050: ties go to the even mantissa (2048).
  EXPECT_EQ(HalfToFloat(FloatToHalf(2049.0f)), 2048.0f);
  EXPECT_EQ(HalfToFloat(FloatToHalf(2051.0f)), 2052.0f);
  EXPECT_EQ(BF16ToFloat(FloatToBF16(257.0f)), 256.0f);
  EXPECT_EQ(BF16ToFloat(FloatToBF16(259.0f)), 260.0f);
}

TEST(HalfTest, EveryHalfRoundTrips) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    float f = HalfToFloat(static_cast<uint16_t>(h));
    if (std::isnan(f)) continue;
    ASSERT_EQ(FloatToHalf(f), h) << std::hex << h;
  }
}

}  // namespace
}  // namespace commbench
