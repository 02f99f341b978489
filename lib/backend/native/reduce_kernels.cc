// The vectorised kernels behind Reduce and ReduceMany (reduce.h), compiled twice from the same templates: ManyAvx2
// (target avx2,fma,f16c) and ManyPortable (the SSE2 baseline); reduce.cc picks one per call (cpu_features.h).
// Small outputs take auto-vectorised loops with ordinary stores; large out-of-place ones stream from the registers
// (stream_store.h). Half types are widened to f32 (half_convert.h), reduced, and rounded once.
#include "lib/backend/native/reduce_kernels.h"

#include <immintrin.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "lib/backend/native/half_convert.h"
#include "lib/backend/native/reduce_ops.h"
#include "lib/backend/native/stream_store.h"
#include "lib/core/half.h"

namespace commbench {
namespace native {
namespace internal {
namespace {

// Elements per tile for the half types and for multi-input reductions: small enough that the f32 accumulator
// and the destination stay in L1 while every source streams through.
constexpr size_t kTile = 1024;

template <typename T, typename Op>
CB_INLINE void Loop3(T* __restrict d, const T* __restrict a, const T* __restrict b, size_t n) {
  for (size_t i = 0; i < n; ++i) d[i] = Op::Apply(a[i], b[i]);
}

template <typename T, typename Op>
CB_INLINE void Loop2(T* __restrict d, const T* __restrict b, size_t n) {
  for (size_t i = 0; i < n; ++i) d[i] = Op::Apply(d[i], b[i]);
}

// --- fused half kernels (AVX2 + F16C) ---------------------------------------------------------------------------
//
// dst = srcs[0] op srcs[1] op ... in one pass: load 16 halves of each input, widen to f32 in registers, apply the
// op, round back once, store. The tiled path (HalfMany, now the portable build's) makes 2n passes over an L1 tile
// instead (widen each input, reduce it in, narrow), which left the half types compute-bound at 18-32 GB/s in cache
// with two inputs and 19-20 GB/s with four. Results are those of the tiled path: the same conversions
// (vcvtph2ps / vcvtps2ph with round to nearest even; bf16 widened by a shift and narrowed with Bf16Narrow's
// rounding and quiet NaN) and the same f32 ops in the same order (OpMax/OpMin's NaN-propagating select). Large
// outputs stream straight from the registers, no L1 tile (bench/archive.md).

template <typename Op>
__attribute__((target("avx2,f16c"))) CB_INLINE __m256 ApplyPs(__m256 a, __m256 b) {
  if constexpr (std::is_same_v<Op, OpSum>) {
    return _mm256_add_ps(a, b);
  } else if constexpr (std::is_same_v<Op, OpProd>) {
    return _mm256_mul_ps(a, b);
  } else {
    // (a > b || a != a) ? a : b for max, (a < b || a != a) ? a : b for min.
    constexpr int kCmp = std::is_same_v<Op, OpMax> ? _CMP_GT_OQ : _CMP_LT_OQ;
    __m256 take_a = _mm256_or_ps(_mm256_cmp_ps(a, b, kCmp), _mm256_cmp_ps(a, a, _CMP_UNORD_Q));
    return _mm256_blendv_ps(b, a, take_a);
  }
}

// d[i] = srcs[0][i] op ... op srcs[n-1][i] for i in [begin, end), accumulated in f32 registers and rounded once.
// kInputs is n when known at compile time (2: the loop over the inputs unrolls), 0 otherwise. d may be srcs[0]
// (accumulate): every vector is loaded before it is stored. With kNt the vector stores are non-temporal
// (d + begin 32-byte aligned, end - begin a multiple of 16) and every input is prefetched ahead.
// Called at most three times per call (not inlined: a function of another target cannot be inlined into generic
// code).
template <bool kBf16, typename Op, int kInputs, bool kNt = false>
__attribute__((target("avx2,f16c"), noinline)) void FusedHalf(uint16_t* d, const void* const* srcs, int n, size_t begin,
                                                              size_t end) {
  const int inputs = kInputs != 0 ? kInputs : n;
  auto src = [srcs](int k) { return static_cast<const uint16_t*>(srcs[k]); };
  size_t i = begin;
  for (; i + 16 <= end; i += 16) {
    __m256 lo, hi;
    Widen16<kBf16>(src(0) + i, &lo, &hi);
    for (int k = 1; k < inputs; ++k) {
      __m256 next_lo, next_hi;
      Widen16<kBf16>(src(k) + i, &next_lo, &next_hi);
      lo = ApplyPs<Op>(lo, next_lo);
      hi = ApplyPs<Op>(hi, next_hi);
    }
    const __m256i r = Narrow16<kBf16, Op>(lo, hi);
    if constexpr (kNt) {
      for (int k = 0; k < inputs; ++k) PrefetchAhead(src(k) + i);
      _mm256_stream_si256(reinterpret_cast<__m256i*>(d + i), r);
    } else {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + i), r);
    }
  }
  auto widen = [](uint16_t h) { return kBf16 ? BF16ToFloat(h) : HalfToFloat(h); };
  for (; i < end; ++i) {
    float acc = widen(src(0)[i]);
    for (int k = 1; k < inputs; ++k) acc = Op::Apply(acc, widen(src(k)[i]));
    d[i] = kBf16 ? FloatToBF16(acc) : FloatToHalf(acc);
  }
}

// --- fused full-width kernels ----------------------------------------------------------------------------------
//
// dst = srcs[0] op srcs[1] op ... for f32, f64 and i32 with streaming stores straight from the registers (large
// outputs; smaller ones take the auto-vectorised loops of TypedMany). Going through StreamedOut's
// tile instead alternates bursts of loads (reducing a tile) with bursts of streaming stores (writing it out), so
// fewer memory requests are in flight at a time: at 512 MiB an 8 KiB tile reached 62-79 % of memcpy's bandwidth,
// loads and stores interleaved in one loop 80-103 % (bench/archive.md). One template serves every dtype and op
// through the GCC vector extension; the function's target picks the instructions.

template <typename T, int kBytes>
struct VecOf {
  typedef T type __attribute__((vector_size(kBytes)));
};

// The vector form of Op::Apply, lane by lane the same results: integer sum and product wrap (computed unsigned),
// max and min are the same NaN-propagating select. Operands by reference: a 32-byte vector passed by value to
// generic code would change the calling convention (-Wpsabi); inlined into the kernels, nothing is passed.
template <typename Op, typename V>
CB_INLINE void ApplyVec(V& r, const V& a, const V& b) {
  using T = std::remove_reference_t<decltype(a[0])>;
  using U = typename VecOf<uint32_t, sizeof(V)>::type;
  if constexpr (std::is_same_v<Op, OpSum> || std::is_same_v<Op, OpProd>) {
    constexpr bool kSum = std::is_same_v<Op, OpSum>;
    if constexpr (std::is_integral_v<T>) {
      const U ua = reinterpret_cast<const U&>(a), ub = reinterpret_cast<const U&>(b);
      const U ur = kSum ? ua + ub : ua * ub;
      r = reinterpret_cast<const V&>(ur);
    } else {
      r = kSum ? a + b : a * b;
    }
  } else {
    constexpr bool kMax = std::is_same_v<Op, OpMax>;
    if constexpr (std::is_floating_point_v<T>) {
      r = ((kMax ? a > b : a < b) | (a != a)) ? a : b;
    } else {
      r = (kMax ? a > b : a < b) ? a : b;
    }
  }
}

// d[i] = srcs[0][i] op ... op srcs[n-1][i] for i in [begin, end) with streaming stores; kInputs as in FusedHalf.
// The loop of both targets is a macro: the streaming store's intrinsic needs the enclosing function's target.
// end - begin a multiple of the lanes, d + begin aligned to the vector size; the inputs need no alignment.
#define CB_FUSED_STREAM_LOOP(kBytes, STORE)                            \
  using V = typename VecOf<T, kBytes>::type;                           \
  const int inputs = kInputs != 0 ? kInputs : n;                       \
  auto src = [srcs](int k) { return static_cast<const T*>(srcs[k]); }; \
  for (size_t i = begin; i < end; i += kBytes / sizeof(T)) {           \
    V r;                                                               \
    std::memcpy(&r, src(0) + i, kBytes);                               \
    PrefetchAhead(src(0) + i);                                         \
    for (int k = 1; k < inputs; ++k) {                                 \
      V next;                                                          \
      std::memcpy(&next, src(k) + i, kBytes);                          \
      PrefetchAhead(src(k) + i);                                       \
      ApplyVec<Op>(r, r, next);                                        \
    }                                                                  \
    STORE;                                                             \
  }

// Called at most once per call (not inlined: a function of another target cannot be inlined into generic code).
template <typename T, typename Op, int kInputs>
__attribute__((target("avx2"), noinline)) void FusedStreamAvx2(T* d, const void* const* srcs, int n, size_t begin,
                                                               size_t end) {
  CB_FUSED_STREAM_LOOP(32, _mm256_stream_si256(reinterpret_cast<__m256i*>(d + i), reinterpret_cast<__m256i&>(r)))
}

template <typename T, typename Op, int kInputs>
void FusedStreamSse2(T* d, const void* const* srcs, int n, size_t begin, size_t end) {
  CB_FUSED_STREAM_LOOP(16, _mm_stream_si128(reinterpret_cast<__m128i*>(d + i), reinterpret_cast<__m128i&>(r)))
}

#undef CB_FUSED_STREAM_LOOP

// --- typed kernels --------------------------------------------------------------------------------------------

template <typename T, typename Op>
CB_INLINE void Typed(void* dst, const void* a, const void* b, size_t n) {
  T* d = static_cast<T*>(dst);
  if (d == a) {
    Loop2<T, Op>(d, static_cast<const T*>(b), n);
  } else {
    Loop3<T, Op>(d, static_cast<const T*>(a), static_cast<const T*>(b), n);
  }
}

template <bool kHw, typename T, typename Op>
CB_INLINE void TypedMany(void* dst, const void* const* srcs, int n, size_t count) {
  T* d = static_cast<T*>(dst);
  if (n == 1) {
    if (d != srcs[0]) std::memcpy(d, srcs[0], count * sizeof(T));
    return;
  }
  // The ordinary-store loop over [begin, end), a tile at a time so that d's tile stays in L1 across the inputs.
  auto plain = [&](size_t begin, size_t end) __attribute__((always_inline)) {
    for (size_t base = begin; base < end; base += kTile) {
      size_t m = end - base < kTile ? end - base : kTile;
      Typed<T, Op>(d + base, static_cast<const T*>(srcs[0]) + base, static_cast<const T*>(srcs[1]) + base, m);
      for (int k = 2; k < n; ++k) Loop2<T, Op>(d + base, static_cast<const T*>(srcs[k]) + base, m);
    }
  };
  if (Streams(dst, srcs[0], count * sizeof(T))) {
    auto part = [&](size_t begin, size_t end, bool streamed) __attribute__((always_inline)) {
      if (!streamed) {
        plain(begin, end);
      } else if constexpr (kHw) {
        (n == 2 ? FusedStreamAvx2<T, Op, 2> : FusedStreamAvx2<T, Op, 0>)(d, srcs, n, begin, end);
      } else {
        (n == 2 ? FusedStreamSse2<T, Op, 2> : FusedStreamSse2<T, Op, 0>)(d, srcs, n, begin, end);
      }
    };
    constexpr size_t kVector = kHw ? 32 : 16;
    if (StreamedParts<kVector, kVector / sizeof(T)>(d, count, part)) return;
  }
  plain(0, count);
}

template <bool kHw, bool kBf16, typename Op>
CB_INLINE void HalfMany(void* dst, const void* const* srcs, int n, size_t count) {
  uint16_t* d = static_cast<uint16_t*>(dst);
  if (n == 1) {  // a copy, bit for bit (a round trip through f32 would quiet signalling NaNs)
    if (d != srcs[0]) std::memcpy(d, srcs[0], count * sizeof(uint16_t));
    return;
  }
  if constexpr (kHw) {  // one pass, no f32 tiles
    auto part = [&](size_t begin, size_t end, bool streamed) __attribute__((always_inline)) {
      if (n == 2) {
        (streamed ? FusedHalf<kBf16, Op, 2, true> : FusedHalf<kBf16, Op, 2>)(d, srcs, n, begin, end);
      } else {
        (streamed ? FusedHalf<kBf16, Op, 0, true> : FusedHalf<kBf16, Op, 0>)(d, srcs, n, begin, end);
      }
    };
    if (!Streams(dst, srcs[0], count * sizeof(uint16_t)) || !StreamedParts<32, 16>(d, count, part)) {
      part(0, count, false);
    }
    return;
  }
  alignas(64) float acc[kTile];
  alignas(64) float tmp[kTile];
  // Reduces elements [base, base + m), m <= kTile, into out.
  auto tile = [&](uint16_t* __restrict out, size_t base, size_t m) __attribute__((always_inline)) {
    Widen<kBf16>(acc, static_cast<const uint16_t*>(srcs[0]) + base, m);
    for (int k = 1; k < n; ++k) {
      Widen<kBf16>(tmp, static_cast<const uint16_t*>(srcs[k]) + base, m);
      Loop2<float, Op>(acc, tmp, m);
    }
    Narrow<kBf16>(out, acc, m);
  };
  if (Streams(dst, srcs[0], count * sizeof(uint16_t))) {
    alignas(64) uint16_t out[kStreamTileBytes / sizeof(uint16_t)];
    auto produce = [&](uint16_t* __restrict o, size_t base, size_t m) __attribute__((always_inline)) {
      for (size_t i = 0; i < m; i += kTile) tile(o + i, base + i, m - i < kTile ? m - i : kTile);
    };
    if (StreamedOut(d, count, out, produce)) return;
  }
  for (size_t base = 0; base < count; base += kTile) {
    size_t m = count - base < kTile ? count - base : kTile;
    tile(d + base, base, m);
  }
}

template <bool kHw, typename Op>
CB_INLINE void ManyForOp(DataType dtype, void* dst, const void* const* srcs, int n, size_t count) {
  switch (dtype) {
    case DataType::kF32:
      return TypedMany<kHw, float, Op>(dst, srcs, n, count);
    case DataType::kF64:
      return TypedMany<kHw, double, Op>(dst, srcs, n, count);
    case DataType::kI32:
      return TypedMany<kHw, int32_t, Op>(dst, srcs, n, count);
    case DataType::kF16:
      return HalfMany<kHw, false, Op>(dst, srcs, n, count);
    case DataType::kBF16:
      return HalfMany<kHw, true, Op>(dst, srcs, n, count);
  }
}

template <bool kHw>
CB_INLINE void Many(DataType dtype, ReduceOp op, void* dst, const void* const* srcs, int n, size_t count) {
  switch (op) {
    case ReduceOp::kSum:
      return ManyForOp<kHw, OpSum>(dtype, dst, srcs, n, count);
    case ReduceOp::kProd:
      return ManyForOp<kHw, OpProd>(dtype, dst, srcs, n, count);
    case ReduceOp::kMax:
      return ManyForOp<kHw, OpMax>(dtype, dst, srcs, n, count);
    case ReduceOp::kMin:
      return ManyForOp<kHw, OpMin>(dtype, dst, srcs, n, count);
  }
}

}  // namespace

// The two instantiations: the body is inlined into each, so the compiler vectorises it for that target.
__attribute__((target("avx2,fma,f16c"))) void ManyAvx2(DataType dtype, ReduceOp op, void* dst, const void* const* srcs,
                                                       int n, size_t count) {
  Many<true>(dtype, op, dst, srcs, n, count);
}

void ManyPortable(DataType dtype, ReduceOp op, void* dst, const void* const* srcs, int n, size_t count) {
  Many<false>(dtype, op, dst, srcs, n, count);
}

}  // namespace internal
}  // namespace native
}  // namespace commbench
