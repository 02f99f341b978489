#include "lib/backend/native/reduce.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "lib/core/half.h"

namespace commbench {
namespace native {
namespace {

// Random elements with the awkward values mixed in: NaN, +-inf, +-0, values that round at half precision,
// and (for f16) results that overflow to inf or fall into subnormals.
std::vector<char> RandomBuffer(DataType dtype, size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> wide(-70000.0f, 70000.0f);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::vector<char> buf(n * SizeOf(dtype));
  const float kSpecial[] = {std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            0.0f,
                            -0.0f,
                            2049.0f,
                            1e-6f,
                            6e-5f};
  for (size_t i = 0; i < n; ++i) {
    float v;
    uint32_t pick = rng() % 16;
    if (pick < 8) {
      v = kSpecial[pick];
    } else if (pick < 12) {
      v = wide(rng);
    } else {
      v = unit(rng) * 3.0f;
    }
    char* p = buf.data() + i * SizeOf(dtype);
    switch (dtype) {
      case DataType::kF32:
        std::memcpy(p, &v, 4);
        break;
      case DataType::kF64: {
        double d = v * 1.000001;
        std::memcpy(p, &d, 8);
        break;
      }
      case DataType::kI32: {
        int32_t x = static_cast<int32_t>(rng());  // full range: sums and products wrap
        std::memcpy(p, &x, 4);
        break;
      }
      case DataType::kF16: {
        uint16_t h = FloatToHalf(v);
        std::memcpy(p, &h, 2);
        break;
      }
      case DataType::kBF16: {
        uint16_t h = FloatToBF16(v);
        std::memcpy(p, &h, 2);
        break;
      }
    }
  }
  return buf;
}

double Element(DataType dtype, const std::vector<char>& buf, size_t i, bool* nan) {
  const char* p = buf.data() + i * SizeOf(dtype);
  double v = 0;
  switch (dtype) {
    case DataType::kF32: {
      float f;
      std::memcpy(&f, p, 4);
      v = f;
      break;
    }
    case DataType::kF64:
      std::memcpy(&v, p, 8);
      break;
    case DataType::kI32: {
      int32_t x;
      std::memcpy(&x, p, 4);
      v = x;
      break;
    }
    case DataType::kF16:
    case DataType::kBF16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      v = dtype == DataType::kF16 ? HalfToFloat(h) : BF16ToFloat(h);
      break;
    }
  }
  *nan = std::isnan(v);
  return v;
}

// Equal values, or both NaN (NaN payloads may differ between F16C and the scalar conversion).
void ExpectSame(DataType dtype, const std::vector<char>& got, const std::vector<char>& want, size_t n,
                const std::string& what) {
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    bool gn, wn;
    double g = Element(dtype, got, i, &gn);
    double w = Element(dtype, want, i, &wn);
    if (gn != wn || (!gn && g != w)) {
      if (bad++ < 3) ADD_FAILURE() << what << " index " << i << ": got " << g << " want " << w;
    }
  }
  EXPECT_EQ(bad, 0u) << what;
}

class ReduceTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override { previous_ = ForcePortableKernels(GetParam()); }
  void TearDown() override { ForcePortableKernels(previous_); }
  bool previous_ = false;
};

TEST_P(ReduceTest, MatchesScalarReferenceOutOfPlaceAndInPlace) {
  for (DataType dtype : AllDataTypes()) {
    for (ReduceOp op : AllReduceOps()) {
      for (size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{1023}, size_t{4099}}) {
        std::string what =
            std::string(Name(dtype)) + "/" + std::string(Name(op)) + "/n=" + std::to_string(n) + "/" + KernelIsa();
        auto a = RandomBuffer(dtype, n, 1 + static_cast<uint32_t>(n));
        auto b = RandomBuffer(dtype, n, 2 + static_cast<uint32_t>(n));
        std::vector<char> want(a.size()), got(a.size());
        ReduceReference(dtype, op, want.data(), a.data(), b.data(), n);
        Reduce(dtype, op, got.data(), a.data(), b.data(), n);
        ExpectSame(dtype, got, want, n, what + " out-of-place");
        std::vector<char> acc = a;
        Reduce(dtype, op, acc.data(), acc.data(), b.data(), n);
        ExpectSame(dtype, acc, want, n, what + " in-place");
      }
    }
  }
}

// The half types' reference for k inputs: each widened to f32, reduced left to right by the f32 reference, and
// the result rounded once.
std::vector<uint16_t> HalfChainRoundedOnce(DataType dtype, ReduceOp op, const void* const* srcs, int k, size_t n) {
  const bool bf16 = dtype == DataType::kBF16;
  std::vector<float> acc(n), x(n);
  auto widen = [&](const void* from, float* to) {
    for (size_t j = 0; j < n; ++j) {
      const uint16_t h = static_cast<const uint16_t*>(from)[j];
      to[j] = bf16 ? BF16ToFloat(h) : HalfToFloat(h);
    }
  };
  widen(srcs[0], acc.data());
  for (int i = 1; i < k; ++i) {
    widen(srcs[i], x.data());
    ReduceReference(DataType::kF32, op, acc.data(), acc.data(), x.data(), n);
  }
  std::vector<uint16_t> want(n);
  for (size_t j = 0; j < n; ++j) want[j] = bf16 ? FloatToBF16(acc[j]) : FloatToHalf(acc[j]);
  return want;
}

// Many inputs: full-precision types reduce left to right like the chained reference; half types accumulate in
// f32 and round once, so their reference is the f32 chain rounded at the end.
void CheckManyInputsRoundOnce() {
  const size_t n = 3001;
  for (DataType dtype : AllDataTypes()) {
    for (ReduceOp op : AllReduceOps()) {
      for (int k : {1, 2, 3, 5}) {
        std::vector<std::vector<char>> in;
        std::vector<const void*> srcs;
        for (int i = 0; i < k; ++i) in.push_back(RandomBuffer(dtype, n, 100 + static_cast<uint32_t>(i)));
        for (auto& b : in) srcs.push_back(b.data());
        std::vector<char> want(in[0].size());
        bool half = dtype == DataType::kF16 || dtype == DataType::kBF16;
        if (!half) {
          want = in[0];
          for (int i = 1; i < k; ++i) ReduceReference(dtype, op, want.data(), want.data(), in[i].data(), n);
        } else {
          std::vector<uint16_t> half = HalfChainRoundedOnce(dtype, op, srcs.data(), k, n);
          std::memcpy(want.data(), half.data(), want.size());
        }
        std::vector<char> got(want.size());
        ReduceMany(dtype, op, got.data(), srcs.data(), k, n);
        std::string what = std::string(Name(dtype)) + "/" + std::string(Name(op)) + "/k=" + std::to_string(k);
        ExpectSame(dtype, got, want, n, what);
        // dst aliasing the first source.
        std::vector<char> first = in[0];
        srcs[0] = first.data();
        ReduceMany(dtype, op, first.data(), srcs.data(), k, n);
        ExpectSame(dtype, first, want, n, what + " dst=srcs[0]");
      }
    }
  }
}

TEST_P(ReduceTest, ManyInputsRoundOnce) { CheckManyInputsRoundOnce(); }

// Sets the non-temporal-store threshold for one scope.
class ScopedStreamingThreshold {
 public:
  explicit ScopedStreamingThreshold(size_t bytes) : previous_(SetStreamingThresholdBytes(bytes)) {}
  ~ScopedStreamingThreshold() { SetStreamingThresholdBytes(previous_); }

 private:
  size_t previous_;
};

// Out of place into dst + dst_offset elements from a + a_offset and b + b_offset, against the reference.
void CheckOffsets(DataType dtype, ReduceOp op, const std::vector<char>& a_data, const std::vector<char>& b_data,
                  size_t n, size_t dst_offset, size_t a_offset, size_t b_offset, const std::string& what) {
  const size_t es = SizeOf(dtype);
  // 64 spare bytes in front so that every offset sees every alignment relative to a vector.
  std::vector<char> a(64 + (n + a_offset) * es), b(64 + (n + b_offset) * es), got(64 + (n + dst_offset) * es);
  std::memcpy(a.data() + 64 + a_offset * es, a_data.data(), n * es);
  std::memcpy(b.data() + 64 + b_offset * es, b_data.data(), n * es);
  std::vector<char> want(n * es), out(n * es);
  ReduceReference(dtype, op, want.data(), a_data.data(), b_data.data(), n);
  Reduce(dtype, op, got.data() + 64 + dst_offset * es, a.data() + 64 + a_offset * es, b.data() + 64 + b_offset * es, n);
  std::memcpy(out.data(), got.data() + 64 + dst_offset * es, n * es);
  ExpectSame(dtype, out, want, n, what);
}

// Threshold 0: every out-of-place output takes the non-temporal path, at every dst alignment (the unaligned head
// stored normally), with a, b misaligned against dst and tails that are not a multiple of the vector width or of
// the streamed tile.
TEST_P(ReduceTest, StreamedOutputMatchesReferenceAtEveryAlignment) {
  ScopedStreamingThreshold streaming(0);
  for (DataType dtype : AllDataTypes()) {
    const size_t es = SizeOf(dtype);
    for (ReduceOp op : AllReduceOps()) {
      for (size_t n : {size_t{1}, size_t{7}, size_t{17}, size_t{1023}, size_t{4099}, size_t{20011}}) {
        auto a = RandomBuffer(dtype, n, 11 + static_cast<uint32_t>(n));
        auto b = RandomBuffer(dtype, n, 12 + static_cast<uint32_t>(n));
        for (size_t dst_offset = 0; dst_offset < 32 / es; ++dst_offset) {
          std::string what = std::string(Name(dtype)) + "/" + std::string(Name(op)) + "/n=" + std::to_string(n) +
                             "/dst+" + std::to_string(dst_offset) + "/" + KernelIsa();
          CheckOffsets(dtype, op, a, b, n, dst_offset, 3, 5, what);
        }
      }
    }
  }
  CheckManyInputsRoundOnce();  // more than two inputs through the streamed tiles
}

// A buffer of n elements made of one random block repeated (cheap at tens of MiB; values vary within a tile).
std::vector<char> RepeatedRandomBuffer(DataType dtype, size_t n, uint32_t seed) {
  const size_t block = 65537;
  auto one = RandomBuffer(dtype, block, seed);
  std::vector<char> buf(n * SizeOf(dtype));
  for (size_t off = 0; off < buf.size(); off += one.size()) {
    std::memcpy(buf.data() + off, one.data(), std::min(one.size(), buf.size() - off));
  }
  return buf;
}

// The default threshold as it is: an output just above it, dst, a and b off vector alignment, a tail that is not a
// multiple of the vector width.
TEST_P(ReduceTest, LargeOutputAboveDefaultThresholdMatchesReference) {
  for (DataType dtype : AllDataTypes()) {
    const size_t n = StreamingThresholdBytes() / SizeOf(dtype) + 4099;
    auto a = RepeatedRandomBuffer(dtype, n, 21);
    auto b = RepeatedRandomBuffer(dtype, n, 22);
    for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kMax}) {
      if (op == ReduceOp::kMax && dtype != DataType::kF32) continue;  // keeps the test small
      std::string what =
          std::string(Name(dtype)) + "/" + std::string(Name(op)) + "/n=" + std::to_string(n) + "/" + KernelIsa();
      CheckOffsets(dtype, op, a, b, n, 1, 3, 5, what);
    }
  }
}

// Copy: byte for byte, with the guard bytes around dst untouched, through the streamed path (threshold 0) at
// every dst alignment within a line and src misaligned against it, around the four-page blocks (16 KiB) and
// their remainders; then through memcpy (threshold at its default).
TEST_P(ReduceTest, CopyMatchesMemcpyAtEveryAlignment) {
  std::mt19937 rng(7);
  std::vector<char> src(3 * 16384 + 300);
  for (char& c : src) c = static_cast<char>(rng());
  for (size_t threshold : {size_t{0}, StreamingThresholdBytes()}) {
    ScopedStreamingThreshold streaming(threshold);
    for (size_t bytes : {size_t{0}, size_t{1}, size_t{31}, size_t{64}, size_t{1000}, size_t{16384},
                         size_t{16384 + 64 + 33}, size_t{3 * 16384 + 200}}) {
      for (size_t dst_offset = 0; dst_offset < 64; dst_offset += 7) {
        for (size_t src_offset : {size_t{0}, size_t{5}, size_t{32}}) {
          std::vector<char> dst(bytes + 128, '\x5a');
          Copy(dst.data() + 64 + dst_offset, src.data() + src_offset, bytes);
          const std::string what = "bytes=" + std::to_string(bytes) + " dst+" + std::to_string(dst_offset) + " src+" +
                                   std::to_string(src_offset) + " threshold=" + std::to_string(threshold) + " " +
                                   KernelIsa();
          ASSERT_EQ(std::memcmp(dst.data() + 64 + dst_offset, src.data() + src_offset, bytes), 0) << what;
          for (size_t i = 0; i < 64 + dst_offset; ++i) ASSERT_EQ(dst[i], '\x5a') << what << " guard before " << i;
          for (size_t i = 64 + dst_offset + bytes; i < dst.size(); ++i) {
            ASSERT_EQ(dst[i], '\x5a') << what << " guard after";
          }
        }
      }
    }
  }
}

// Half results bit for bit against the reference, with one allowance: a NaN may carry another payload (F16C
// keeps the payload, the scalar conversion does not; which NaN operand a sum returns is the compiler's choice),
// though a bf16 NaN must be quiet as FloatToBF16 makes it. Signed zeros must match: max/min pick b on ties in
// the kernels and in the reference.
void ExpectSameHalfBits(DataType dtype, const uint16_t* got, const uint16_t* want, size_t n, const std::string& what) {
  const bool bf16 = dtype == DataType::kBF16;
  auto is_nan = [&](uint16_t h) { return bf16 ? (h & 0x7fffu) > 0x7f80u : (h & 0x7fffu) > 0x7c00u; };
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint16_t g = got[i], w = want[i];
    bool ok = g == w;
    if (!ok && is_nan(w)) ok = is_nan(g) && (!bf16 || (g & 0x40u) != 0);
    if (!ok && bad++ < 3) ADD_FAILURE() << what << " index " << i << ": got 0x" << std::hex << g << " want 0x" << w;
  }
  EXPECT_EQ(bad, 0u) << what;
}

// The two-input half kernels (one pass under AVX2: 8 or 16 elements per vector, a scalar tail) on uniformly
// random 16-bit patterns, so NaNs with every payload (signalling ones too), infinities, subnormals, both zeros and
// rounding ties all occur; every length 1..48 (every tail of the vector loops) and longer ones, a, b and dst at
// odd element offsets, in place and out of place, with ordinary and with streamed (threshold 0) output.
TEST_P(ReduceTest, HalfTwoInputsBitPatternsTailsAndOffsets) {
  std::mt19937 rng(7);
  std::vector<size_t> lengths;
  for (size_t n = 1; n <= 48; ++n) lengths.push_back(n);
  for (size_t n : {size_t{1000}, size_t{4096}, size_t{4111}, size_t{20011}}) lengths.push_back(n);
  for (DataType dtype : {DataType::kF16, DataType::kBF16}) {
    for (ReduceOp op : AllReduceOps()) {
      for (size_t threshold : {size_t{0}, std::numeric_limits<size_t>::max()}) {
        ScopedStreamingThreshold streaming(threshold);
        for (size_t n : lengths) {
          for (size_t offset : {size_t{0}, size_t{1}, size_t{3}, size_t{7}}) {
            // a at offset, b at offset + 5, dst at offset + 2: mutually misaligned, each at every parity.
            std::vector<uint16_t> a(n + offset + 16), b(n + offset + 16), got(n + offset + 16), want(n);
            for (auto& h : a) h = static_cast<uint16_t>(rng());
            for (auto& h : b) h = static_cast<uint16_t>(rng());
            const uint16_t* pa = a.data() + offset;
            const uint16_t* pb = b.data() + offset + 5;
            ReduceReference(dtype, op, want.data(), pa, pb, n);
            const std::vector<uint16_t> got_before = got;
            Reduce(dtype, op, got.data() + offset + 2, pa, pb, n);
            std::string what = std::string(Name(dtype)) + "/" + std::string(Name(op)) + "/n=" + std::to_string(n) +
                               "/offset=" + std::to_string(offset) + "/threshold=" + std::to_string(threshold) + "/" +
                               KernelIsa();
            ExpectSameHalfBits(dtype, got.data() + offset + 2, want.data(), n, what + " out-of-place");
            // Nothing written outside dst.
            for (size_t i = 0; i < got.size(); ++i) {
              if (i < offset + 2 || i >= offset + 2 + n) {
                ASSERT_EQ(got[i], got_before[i]) << what << " index " << i;
              }
            }
            std::vector<uint16_t> acc = a;
            Reduce(dtype, op, acc.data() + offset, acc.data() + offset, pb, n);
            ExpectSameHalfBits(dtype, acc.data() + offset, want.data(), n, what + " in-place");
          }
        }
      }
    }
  }
}

// Every one of the 65536 half values against a few partners that reach every rounding case (zeros, the smallest
// subnormal and normal, one, the largest finite value, -infinity), bit for bit against the reference: what the
// portable build's branch-free conversions (F16ToF32Portable, F32ToF16Portable) must reproduce exactly.
TEST_P(ReduceTest, HalfEveryValueAgainstTheReference) {
  std::vector<uint16_t> every(65536);
  for (size_t i = 0; i < every.size(); ++i) every[i] = static_cast<uint16_t>(i);
  for (DataType dtype : {DataType::kF16, DataType::kBF16}) {
    for (ReduceOp op : AllReduceOps()) {
      for (uint16_t partner : {0x0000, 0x8000, 0x0001, 0x0400, 0x3c00, 0x3c01, 0x7bff, 0xfc00}) {
        std::vector<uint16_t> b(every.size(), partner), got(every.size()), want(every.size());
        ReduceReference(dtype, op, want.data(), every.data(), b.data(), every.size());
        Reduce(dtype, op, got.data(), every.data(), b.data(), every.size());
        std::ostringstream what;
        what << Name(dtype) << "/" << Name(op) << "/partner=0x" << std::hex << partner << "/" << KernelIsa();
        ExpectSameHalfBits(dtype, got.data(), want.data(), every.size(), what.str());
        // Three inputs go through the tiles in the portable build: widen, reduce, narrow.
        const void* srcs[3] = {every.data(), b.data(), b.data()};
        want = HalfChainRoundedOnce(dtype, op, srcs, 3, every.size());
        ReduceMany(dtype, op, got.data(), srcs, 3, every.size());
        ExpectSameHalfBits(dtype, got.data(), want.data(), every.size(), what.str() + "/three inputs");
      }
    }
  }
}

// Three and five half inputs (one pass under AVX2, tiles in the portable build) bit for bit against the f32
// chain of the reference rounded once, on random bit patterns as above (signalling NaNs, subnormals, ties), every
// tail 1..40 and longer lengths, inputs misaligned against dst, in place (dst = srcs[0]) and out of place, with
// ordinary and streamed output.
TEST_P(ReduceTest, HalfManyInputsBitPatternsRoundOnce) {
  std::mt19937 rng(11);
  std::vector<size_t> lengths;
  for (size_t n = 1; n <= 40; ++n) lengths.push_back(n);
  for (size_t n : {size_t{1000}, size_t{4111}}) lengths.push_back(n);
  for (DataType dtype : {DataType::kF16, DataType::kBF16}) {
    for (ReduceOp op : AllReduceOps()) {
      for (int k : {3, 5}) {
        for (size_t threshold : {size_t{0}, std::numeric_limits<size_t>::max()}) {
          ScopedStreamingThreshold streaming(threshold);
          for (size_t n : lengths) {
            std::vector<std::vector<uint16_t>> in(static_cast<size_t>(k), std::vector<uint16_t>(n + 8));
            std::vector<const void*> srcs;
            for (int i = 0; i < k; ++i) {
              for (auto& h : in[static_cast<size_t>(i)]) h = static_cast<uint16_t>(rng());
              srcs.push_back(in[static_cast<size_t>(i)].data() + 1 + i);  // each input at its own offset
            }
            const std::vector<uint16_t> want = HalfChainRoundedOnce(dtype, op, srcs.data(), k, n);
            const std::string what = std::string(Name(dtype)) + "/" + std::string(Name(op)) +
                                     "/k=" + std::to_string(k) + "/n=" + std::to_string(n) +
                                     "/threshold=" + std::to_string(threshold) + "/" + KernelIsa();
            std::vector<uint16_t> got(n + 8);
            ReduceMany(dtype, op, got.data() + 3, srcs.data(), k, n);
            ExpectSameHalfBits(dtype, got.data() + 3, want.data(), n, what + " out-of-place");
            std::vector<uint16_t> first = in[0];
            srcs[0] = first.data() + 1;
            ReduceMany(dtype, op, first.data() + 1, srcs.data(), k, n);
            ExpectSameHalfBits(dtype, first.data() + 1, want.data(), n, what + " dst=srcs[0]");
          }
        }
      }
    }
  }
}

// One input is a copy: every bit pattern kept, signalling NaNs included, for every dtype.
TEST_P(ReduceTest, OneInputCopiesEveryBit) {
  std::mt19937 rng(5);
  for (DataType dtype : AllDataTypes()) {
    std::vector<char> in(4099 * SizeOf(dtype)), out(in.size());
    for (char& c : in) c = static_cast<char>(rng());
    const void* srcs[1] = {in.data()};
    for (ReduceOp op : AllReduceOps()) {
      ReduceMany(dtype, op, out.data(), srcs, 1, 4099);
      EXPECT_EQ(std::memcmp(out.data(), in.data(), in.size()), 0) << Name(dtype) << "/" << Name(op);
    }
  }
}

TEST_P(ReduceTest, NanPropagatesThroughMaxAndMinInEitherOrder) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  float a[2] = {nan, 1.0f}, b[2] = {1.0f, nan}, out[2];
  for (ReduceOp op : {ReduceOp::kMax, ReduceOp::kMin}) {
    Reduce(DataType::kF32, op, out, a, b, 2);
    EXPECT_TRUE(std::isnan(out[0]));
    EXPECT_TRUE(std::isnan(out[1]));
  }
}

// Max and min of +0 and -0 (which compare equal): the kernels and the reference agree bit for bit, in both
// orders, for every float type (value comparisons elsewhere cannot see the sign of a zero).
TEST_P(ReduceTest, SignedZerosOfMaxAndMinMatchTheReference) {
  const uint16_t h_pos = 0, h_neg = 0x8000;
  const float f_pos = 0.0f, f_neg = -0.0f;
  const double d_pos = 0.0, d_neg = -0.0;
  struct Case {
    DataType dtype;
    std::vector<char> a, b;  // {+0, -0} and {-0, +0}
  };
  auto bytes = [](auto x, auto y) {
    std::vector<char> v(2 * sizeof(x));
    std::memcpy(v.data(), &x, sizeof(x));
    std::memcpy(v.data() + sizeof(x), &y, sizeof(y));
    return v;
  };
  const std::vector<Case> cases = {{DataType::kF32, bytes(f_pos, f_neg), bytes(f_neg, f_pos)},
                                   {DataType::kF64, bytes(d_pos, d_neg), bytes(d_neg, d_pos)},
                                   {DataType::kF16, bytes(h_pos, h_neg), bytes(h_neg, h_pos)},
                                   {DataType::kBF16, bytes(h_pos, h_neg), bytes(h_neg, h_pos)}};
  for (const Case& c : cases) {
    for (ReduceOp op : {ReduceOp::kMax, ReduceOp::kMin}) {
      std::vector<char> got(c.a.size()), want(c.a.size());
      Reduce(c.dtype, op, got.data(), c.a.data(), c.b.data(), 2);
      ReduceReference(c.dtype, op, want.data(), c.a.data(), c.b.data(), 2);
      EXPECT_EQ(got, want) << Name(c.dtype) << " " << Name(op);
    }
  }
}

TEST_P(ReduceTest, HalfSumRoundsToNearestEvenAndOverflowsToInf) {
  // 2048 + 1 = 2049 is a tie between the halves 2048 and 2050: ties go to even (2048).
  uint16_t a[3] = {FloatToHalf(2048.0f), FloatToHalf(65504.0f), FloatToHalf(2048.0f)};
  uint16_t b[3] = {FloatToHalf(1.0f), FloatToHalf(65504.0f), FloatToHalf(3.0f)};
  uint16_t out[3];
  Reduce(DataType::kF16, ReduceOp::kSum, out, a, b, 3);
  EXPECT_EQ(HalfToFloat(out[0]), 2048.0f);
  EXPECT_TRUE(std::isinf(HalfToFloat(out[1])));
  EXPECT_EQ(HalfToFloat(out[2]), 2052.0f);  // 2051 rounds up to the even 2052
  uint16_t c[1] = {FloatToBF16(256.0f)}, d[1] = {FloatToBF16(1.0f)};
  Reduce(DataType::kBF16, ReduceOp::kSum, out, c, d, 1);
  EXPECT_EQ(BF16ToFloat(out[0]), 256.0f);
}

INSTANTIATE_TEST_SUITE_P(Isa, ReduceTest, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Portable" : "Native"; });

}  // namespace
}  // namespace native
}  // namespace commbench
