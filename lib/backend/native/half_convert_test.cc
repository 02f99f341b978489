#include "lib/backend/native/half_convert.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "lib/core/half.h"

namespace commbench {
namespace native {
namespace internal {
namespace {

// Every half bit pattern.
std::vector<uint16_t> EveryHalf() {
  std::vector<uint16_t> all(1 << 16);
  for (uint32_t h = 0; h < all.size(); ++h) all[h] = static_cast<uint16_t>(h);
  return all;
}

// f32 values where narrowing is easy to get wrong: each half widened, one f32 ulp either side of it, and the
// points half-way to the next half value (ties) and one ulp either side; plus a sample of every bit pattern.
// half_step: the distance of two adjacent halves with the same exponent, in f32 bits (f16 1 << 13, bf16 1 << 16).
std::vector<float> NarrowingCases(bool bf16) {
  const uint32_t half_step = bf16 ? (1u << 16) : (1u << 13);
  std::vector<float> out;
  for (uint32_t h = 0; h < (1u << 16); ++h) {
    const uint32_t bits =
        FloatBits(bf16 ? BF16ToFloat(static_cast<uint16_t>(h)) : HalfToFloat(static_cast<uint16_t>(h)));
    for (uint32_t b :
         {bits - 1, bits, bits + 1, bits + half_step / 2 - 1, bits + half_step / 2, bits + half_step / 2 + 1}) {
      out.push_back(BitsToFloat(b));
    }
  }
  for (uint64_t b = 0; b < (uint64_t{1} << 32); b += 65521) out.push_back(BitsToFloat(static_cast<uint32_t>(b)));
  return out;
}

TEST(HalfConvertTest, PortableWideningMatchesTheScalarConversionOnEveryValue) {
  const std::vector<uint16_t> in = EveryHalf();
  std::vector<float> f16(in.size()), bf16(in.size());
  Widen<false>(f16.data(), in.data(), in.size());
  Widen<true>(bf16.data(), in.data(), in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    ASSERT_EQ(FloatBits(f16[i]), FloatBits(HalfToFloat(in[i]))) << "f16 0x" << std::hex << in[i];
    ASSERT_EQ(FloatBits(bf16[i]), FloatBits(BF16ToFloat(in[i]))) << "bf16 0x" << std::hex << in[i];
  }
}

TEST(HalfConvertTest, PortableNarrowingMatchesTheScalarConversion) {
  for (bool bf16 : {false, true}) {
    const std::vector<float> in = NarrowingCases(bf16);
    std::vector<uint16_t> out(in.size());
    if (bf16) {
      Narrow<true>(out.data(), in.data(), in.size());
    } else {
      Narrow<false>(out.data(), in.data(), in.size());
    }
    for (size_t i = 0; i < in.size(); ++i) {
      const uint16_t expected = bf16 ? FloatToBF16(in[i]) : FloatToHalf(in[i]);
      ASSERT_EQ(out[i], expected) << (bf16 ? "bf16" : "f16") << " of f32 0x" << std::hex << FloatBits(in[i]);
    }
  }
}

// The AVX2 register forms against the scalar conversions, 16 elements at a time: every half widened and narrowed
// back (bf16 with max's narrowing, which only quiets NaNs; sum's rounding is covered by reduce_test).
__attribute__((target("avx2,f16c"))) void WidenNarrowAvx2(bool bf16, const uint16_t* in, float* widened,
                                                          uint16_t* narrowed, size_t n) {
  for (size_t i = 0; i + 16 <= n; i += 16) {
    __m256 lo, hi;
    if (bf16) {
      Widen16<true>(in + i, &lo, &hi);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(narrowed + i), Narrow16<true, OpMax>(lo, hi));
    } else {
      Widen16<false>(in + i, &lo, &hi);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(narrowed + i), Narrow16<false, OpSum>(lo, hi));
    }
    // bf16: lo holds the even elements, hi the odd ones (the other half of each lane is not cleared in hi).
    alignas(32) float l[8], h[8];
    _mm256_store_ps(l, lo);
    _mm256_store_ps(h, hi);
    for (int k = 0; k < 8; ++k) {
      if (bf16) {
        widened[i + 2 * k] = l[k];
        widened[i + 2 * k + 1] = h[k];
      } else {
        widened[i + k] = l[k];
        widened[i + 8 + k] = h[k];
      }
    }
  }
}

TEST(HalfConvertTest, Avx2RegisterFormsRoundTripEveryValue) {
  if (!(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c"))) GTEST_SKIP() << "no AVX2 and F16C";
  const std::vector<uint16_t> in = EveryHalf();
  for (bool bf16 : {false, true}) {
    std::vector<float> widened(in.size());
    std::vector<uint16_t> narrowed(in.size());
    WidenNarrowAvx2(bf16, in.data(), widened.data(), narrowed.data(), in.size());
    for (size_t i = 0; i < in.size(); ++i) {
      const float expected = bf16 ? BF16ToFloat(in[i]) : HalfToFloat(in[i]);
      if (!bf16 && expected != expected) {  // vcvtph2ps / vcvtps2ph quiet a NaN but keep its payload
        EXPECT_TRUE(widened[i] != widened[i]) << "f16 0x" << std::hex << in[i];
        EXPECT_EQ(narrowed[i], in[i] | 0x0200u) << "f16 0x" << std::hex << in[i];
        continue;
      }
      const uint32_t got = FloatBits(widened[i]) & (bf16 ? 0xffff0000u : 0xffffffffu);
      ASSERT_EQ(got, FloatBits(expected)) << (bf16 ? "bf16" : "f16") << " 0x" << std::hex << in[i];
      // A round trip gives every value back (a bf16 signalling NaN quieted).
      const uint16_t back = bf16 ? FloatToBF16(expected) : FloatToHalf(expected);
      ASSERT_EQ(narrowed[i], back) << (bf16 ? "bf16" : "f16") << " 0x" << std::hex << in[i];
    }
  }
}

}  // namespace
}  // namespace internal
}  // namespace native
}  // namespace commbench
