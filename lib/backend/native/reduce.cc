#include "lib/backend/native/reduce.h"

#include <immintrin.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>

#include "lib/core/half.h"

namespace commbench {
namespace native {
namespace {

#define CB_INLINE inline __attribute__((always_inline))

// Integer sum and product wrap (two's complement) instead of overflowing, which would be undefined behaviour.
struct OpSum {
  template <typename T>
  static CB_INLINE T Apply(T a, T b) {
    if constexpr (std::is_same_v<T, int32_t>) {
      return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
    } else {
      return a + b;
    }
  }
};
struct OpProd {
  template <typename T>
  static CB_INLINE T Apply(T a, T b) {
    if constexpr (std::is_same_v<T, int32_t>) {
      return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
    } else {
      return a * b;
    }
  }
};
// NaN-propagating: `a != a` is true only for NaN; written as a select so that it vectorises to compare+blend.
struct OpMax {
  template <typename T>
  static CB_INLINE T Apply(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
      return (a > b || a != a) ? a : b;
    } else {
      return a > b ? a : b;
    }
  }
};
struct OpMin {
  template <typename T>
  static CB_INLINE T Apply(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
      return (a < b || a != a) ? a : b;
    } else {
      return a < b ? a : b;
    }
  }
};

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

// --- half conversions ---------------------------------------------------------------------------------------

// bf16 <-> f32 on the bit patterns, through a may_alias view of the f32 tile so that the loops vectorise
// (memcpy per element defeats the vectoriser here).
typedef uint32_t __attribute__((may_alias)) AliasU32;

CB_INLINE void Bf16Widen(float* __restrict out, const uint16_t* __restrict in, size_t n) {
  AliasU32* o = reinterpret_cast<AliasU32*>(out);
  for (size_t i = 0; i < n; ++i) o[i] = static_cast<uint32_t>(in[i]) << 16;
}

// Round to nearest even with NaN kept quiet: the same results as FloatToBF16, branch-free.
CB_INLINE void Bf16Narrow(uint16_t* __restrict out, const float* __restrict in, size_t n) {
  const AliasU32* v = reinterpret_cast<const AliasU32*>(in);
  for (size_t i = 0; i < n; ++i) {
    uint32_t u = v[i];
    uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    uint32_t quiet = (u >> 16) | 0x40u;
    out[i] = static_cast<uint16_t>((u & 0x7fffffffu) > 0x7f800000u ? quiet : rounded);
  }
}

// All ones where `condition` holds: selects written as masks, so that no branch is left for the vectoriser to
// if-convert (it will not speculate the floating-point operations of one side, which may trap).
CB_INLINE uint32_t Mask(bool condition) { return 0u - static_cast<uint32_t>(condition); }

// f16 <-> f32 without F16C, branch-free so that the loops vectorise (SSE2): the same results as HalfToFloat and
// FloatToHalf (half.h), whose branches per element kept the portable f16 kernel at 2-3 GB/s. Widening: shift
// exponent and mantissa into place and rebias; infinities and NaNs rebias once more; subnormals are 2^-14 *
// (1 + m/1024) - 2^-14, exact in f32. Narrowing: normals round to nearest even by adding 0xfff plus the kept
// mantissa's lowest bit before the shift (a carry into the exponent makes 65520 and up infinity); values below
// the smallest normal half are added to 0.5, whose ulp is the half subnormal step, so the FPU rounds them (to
// nearest even); NaN becomes 0x7e00, as in FloatToHalf.

CB_INLINE void F16ToF32Portable(float* __restrict out, const uint16_t* __restrict in, size_t n) {
  AliasU32* o = reinterpret_cast<AliasU32*>(out);
  for (size_t i = 0; i < n; ++i) {
    const uint32_t h = in[i];
    const uint32_t shifted = (h & 0x7fffu) << 13;
    const uint32_t exp = shifted & 0x0f800000u;
    const uint32_t subnormal = FloatBits(BitsToFloat(shifted + (113u << 23)) - BitsToFloat(113u << 23));
    const uint32_t special = Mask(exp == 0x0f800000u), tiny = Mask(exp == 0);
    const uint32_t magnitude = (special & (shifted + (224u << 23))) | (tiny & subnormal) |
                               (~(special | tiny) & (shifted + (112u << 23)));
    o[i] = ((h & 0x8000u) << 16) | magnitude;
  }
}

CB_INLINE void F32ToF16Portable(uint16_t* __restrict out, const float* __restrict in, size_t n) {
  const AliasU32* v = reinterpret_cast<const AliasU32*>(in);
  for (size_t i = 0; i < n; ++i) {
    const uint32_t u = v[i];
    const uint32_t abs = u & 0x7fffffffu;
    const uint32_t normal = (abs - (112u << 23) + 0xfffu + ((abs >> 13) & 1u)) >> 13;
    const uint32_t small = FloatBits(BitsToFloat(abs) + 0.5f) - FloatBits(0.5f);
    const uint32_t nan = Mask(abs > 0x7f800000u), huge = Mask(abs >= (143u << 23)) & ~nan;
    const uint32_t tiny = Mask(abs < (113u << 23));
    const uint32_t magnitude = (nan & 0x7e00u) | (huge & 0x7c00u) | (tiny & small) | (~(nan | huge | tiny) & normal);
    out[i] = static_cast<uint16_t>(((u >> 16) & 0x8000u) | magnitude);
  }
}

// The portable build's tiles (the AVX2 build converts in registers, FusedHalf).
template <bool kBf16>
CB_INLINE void Widen(float* __restrict out, const uint16_t* __restrict in, size_t n) {
  if constexpr (kBf16) {
    Bf16Widen(out, in, n);
  } else {
    F16ToF32Portable(out, in, n);
  }
}

template <bool kBf16>
CB_INLINE void Narrow(uint16_t* __restrict out, const float* __restrict in, size_t n) {
  if constexpr (kBf16) {
    Bf16Narrow(out, in, n);
  } else {
    F32ToF16Portable(out, in, n);
  }
}

// --- fused half kernels (AVX2 + F16C) ---------------------------------------------------------------------------
//
// dst = srcs[0] op srcs[1] op ... in one pass: load 16 halves of each input, widen to f32 in registers, apply the
// op, round back once, store. The tiled path (HalfMany, now the portable build's) makes 2n passes over an L1 tile
// instead (widen each input, reduce it in, narrow), which left the half types compute-bound at 18-32 GB/s in cache
// with two inputs and 19-20 GB/s with four. Results are those of the tiled path: the same conversions
// (vcvtph2ps / vcvtps2ph with round to nearest even; bf16 widened by a shift and narrowed with Bf16Narrow's
// rounding and quiet NaN) and the same f32 ops in the same order (OpMax/OpMin's NaN-propagating select). Large
// outputs stream straight from the registers, no L1 tile (bench/README.md).

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

// Bf16Narrow on 8 lanes of an ApplyPs result, the bf16 in the high half of each 32-bit lane (the low half is
// left unspecified). Shortcuts that give Bf16Narrow's bits because the inputs were widened from bf16, so their
// low 16 bits are zero:
// - sum and prod: a NaN result is an input NaN, quieted by the hardware, the default NaN 0xffc00000, or (with
//   more than two inputs) a partial result that was one of these; in every case quiet with zero low bits, so the
//   rounding increment cannot carry out of them and yields (u >> 16), which already has Bf16Narrow's quiet bit:
//   no NaN select is needed;
// - max and min: the result is one input unchanged, exact in bf16, so there is nothing to round; only a
//   signalling NaN input must be made quiet (0x40 in bf16, bit 22 in f32).
template <typename Op>
__attribute__((target("avx2"))) CB_INLINE __m256i Bf16NarrowHigh(__m256 v) {
  if constexpr (std::is_same_v<Op, OpSum> || std::is_same_v<Op, OpProd>) {
    const __m256i u = _mm256_castps_si256(v);
    const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
    return _mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7fff)), lsb);  // round to nearest even
  } else {
    const __m256 quiet = _mm256_and_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q),
                                       _mm256_castsi256_ps(_mm256_set1_epi32(0x400000)));
    return _mm256_castps_si256(_mm256_or_ps(v, quiet));
  }
}

// How far ahead of the loads the streaming loops prefetch each input. Without it, the kernels whose loops are long
// per cache line (bf16: about 40 instructions per 64 bytes of output) keep fewer lines in flight than the out-of-
// order window allows and reach 67-72 % of memcpy at 512 MiB; with it 93-94 % (bench/README.md).
constexpr size_t kPrefetchAheadBytes = 4096;

CB_INLINE void PrefetchAhead(const void* p) {
  _mm_prefetch(static_cast<const char*>(p) + kPrefetchAheadBytes, _MM_HINT_T0);
}

// 16 halves at s widened to f32 in two vectors: f16 elements 0-7 and 8-15 (vcvtph2ps); bf16, kept in place in
// one 256-bit load, the even elements (a left shift of each 32-bit lane) and the odd ones (its low half masked
// off). Narrow16 undoes the split: the bf16 halves narrow into the high halves of the lanes, the even ones shift
// back down and a word blend recombines them, so no pack or lane permute is needed.
template <bool kBf16>
__attribute__((target("avx2,f16c"))) CB_INLINE void Widen16(const uint16_t* s, __m256* lo, __m256* hi) {
  if constexpr (kBf16) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s));
    *lo = _mm256_castsi256_ps(_mm256_slli_epi32(v, 16));
    *hi = _mm256_castsi256_ps(_mm256_and_si256(v, _mm256_set1_epi32(static_cast<int>(0xffff0000u))));
  } else {
    *lo = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s)));
    *hi = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 8)));
  }
}

template <bool kBf16, typename Op>
__attribute__((target("avx2,f16c"))) CB_INLINE __m256i Narrow16(__m256 lo, __m256 hi) {
  if constexpr (kBf16) {
    return _mm256_blend_epi16(_mm256_srli_epi32(Bf16NarrowHigh<Op>(lo), 16), Bf16NarrowHigh<Op>(hi), 0xaa);
  } else {
    constexpr int kRound = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
    return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm256_cvtps_ph(lo, kRound)), _mm256_cvtps_ph(hi, kRound),
                                   1);
  }
}

// d[i] = srcs[0][i] op ... op srcs[n-1][i] for i in [begin, end), accumulated in f32 registers and rounded once.
// kInputs is n when known at compile time (2: the loop over the inputs unrolls), 0 otherwise. d may be srcs[0]
// (accumulate): every vector is loaded before it is stored. With kNt the vector stores are non-temporal
// (d + begin 32-byte aligned, end - begin a multiple of 16) and every input is prefetched ahead.
// Called at most three times per call (not inlined: a function of another target cannot be inlined into generic
// code).
template <bool kBf16, typename Op, int kInputs, bool kNt = false>
__attribute__((target("avx2,f16c"), noinline)) void FusedHalf(uint16_t* d, const void* const* srcs, int n,
                                                              size_t begin, size_t end) {
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

// --- non-temporal output ------------------------------------------------------------------------------------
//
// A large out-of-place output is written with non-temporal stores. Ordinary stores first read every destination
// line into the cache (read-for-ownership), so dst = a op b moves 4 streams of memory traffic instead of 3;
// streaming stores skip that read and do not evict the caller's working set. The price: dst is not in the cache
// afterwards, which only matters when it would have fitted there, hence the size threshold
// (StreamingThresholdBytes). Reductions stream straight from their registers (FusedHalf, FusedStreamAvx2/Sse2);
// only the portable half kernels reduce each tile of the result into an aligned temporary in L1 and stream that
// out (StreamedOut). Large copies stream too (Copy).

// Output bytes per streamed tile (the portable half kernels'). Small, so that loads and streaming stores stay
// interleaved: when full-width reductions still went through tiles, four f32 inputs at 512 MiB reached 85-86 % of
// memcpy with 512-byte tiles and 65-76 % with 8 KiB tiles (bench/README.md).
constexpr size_t kStreamTileBytes = 512;

// Copies `bytes` (a multiple of 16) from the 16-byte aligned src to the 16-byte aligned dst without reading dst
// (SSE2, part of the x86-64 baseline).
CB_INLINE void StreamOutSse2(void* dst, const void* src, size_t bytes) {
  __m128i* d = static_cast<__m128i*>(dst);
  const __m128i* s = static_cast<const __m128i*>(src);
  for (size_t i = 0; i < bytes / 16; ++i) _mm_stream_si128(d + i, _mm_load_si128(s + i));
}

// A large copy (Copy), src unaligned: one 64-byte line from each of four 4 KiB pages in turn, as glibc's large
// memcpy does. One read stream alone leaves the hardware prefetcher fewer lines in flight: at 512 MiB a plain
// loop reached 20-21 GB/s, four pages 25 GB/s, glibc's memcpy 23 GB/s (bench/README.md). Lines are copied with
// kVec-byte vectors; the rest after the last whole four pages goes in order. A macro, as CB_FUSED_STREAM_LOOP:
// the vector copy's intrinsics need the enclosing function's target.
constexpr size_t kPage = 4096, kPages = 4, kLine = 64;

#define CB_STREAM_COPY_PAGES(kVec, COPY_VEC)                                           \
  size_t i = 0;                                                                        \
  for (; i + kPages * kPage <= bytes; i += kPages * kPage) {                           \
    for (size_t off = 0; off < kPage; off += kLine) {                                  \
      for (size_t p = 0; p < kPages; ++p) {                                            \
        for (size_t v = 0; v < kLine; v += kVec) COPY_VEC(i + p * kPage + off + v);    \
      }                                                                                \
    }                                                                                  \
  }                                                                                    \
  for (; i < bytes; i += kVec) COPY_VEC(i);

// bytes a multiple of 64, d 64-byte aligned; s needs no alignment.
__attribute__((target("avx2"), noinline)) void StreamCopyAvx2(char* d, const char* s, size_t bytes) {
#define CB_COPY32(at)                                            \
  _mm256_stream_si256(reinterpret_cast<__m256i*>(d + (at)),      \
                      _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + (at))))
  CB_STREAM_COPY_PAGES(32, CB_COPY32)
#undef CB_COPY32
}

void StreamCopySse2(char* d, const char* s, size_t bytes) {
#define CB_COPY16(at) \
  _mm_stream_si128(reinterpret_cast<__m128i*>(d + (at)), _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + (at))))
  CB_STREAM_COPY_PAGES(16, CB_COPY16)
#undef CB_COPY16
}

#undef CB_STREAM_COPY_PAGES

// Splits an output of count elements for streaming stores: part(begin, end, false) writes the head up to dst's
// kAlign-byte alignment and the tail after the last whole kMultiple elements with ordinary stores,
// part(begin, end, true) the body between with streaming ones. Returns false (nothing written) when dst is not
// aligned to its element size: then no element boundary falls on a vector boundary.
template <size_t kAlign, size_t kMultiple, typename T, typename Part>
CB_INLINE bool StreamedParts(T* d, size_t count, Part part) {
  const size_t head_bytes = (kAlign - reinterpret_cast<uintptr_t>(d) % kAlign) % kAlign;
  if (head_bytes % sizeof(T) != 0) return false;
  const size_t head = head_bytes / sizeof(T) < count ? head_bytes / sizeof(T) : count;
  const size_t body_end = head + (count - head) / kMultiple * kMultiple;
  part(0, head, false);
  part(head, body_end, true);
  part(body_end, count, false);
  _mm_sfence();  // streaming stores are weakly ordered: make them visible before the caller signals a peer
  return true;
}

// Writes count elements of type T to dst tile by tile: produce(tmp, begin, m) computes elements [begin, begin+m)
// into tmp (aligned, kStreamTileBytes), which then goes to dst, with streaming stores between dst's first 16-byte
// boundary and its last whole vector (StreamedParts), with ordinary ones around them. Returns false (nothing
// written) when dst is not aligned to its element size.
template <typename T, typename Produce>
CB_INLINE bool StreamedOut(T* dst, size_t count, T* __restrict tmp, Produce produce) {
  constexpr size_t kTileElems = kStreamTileBytes / sizeof(T);
  auto part = [&](size_t begin, size_t end, bool streamed) __attribute__((always_inline)) {
    for (size_t base = begin; base < end; base += kTileElems) {
      const size_t m = end - base < kTileElems ? end - base : kTileElems;
      produce(tmp, base, m);
      if (streamed) {
        StreamOutSse2(dst + base, tmp, m * sizeof(T));  // whole vectors: body and tiles are multiples of 16 bytes
      } else {
        std::memcpy(dst + base, tmp, m * sizeof(T));
      }
    }
  };
  return StreamedParts<16, 16 / sizeof(T)>(dst, count, part);
}

size_t DefaultStreamingThreshold();

// A function-local static: set on first use, whatever the order of static initialisation.
std::atomic<size_t>& StreamingThreshold() {
  static std::atomic<size_t> threshold{DefaultStreamingThreshold()};
  return threshold;
}

// Whether an output of `bytes` is written with streaming stores. Accumulate (dst == srcs[0]) never does: its dst lines
// are read anyway, so there is no read-for-ownership to save, and streaming them out measured 25-60 % slower
// than ordinary stores at 16 MiB .. 512 MiB (bench/README.md).
CB_INLINE bool Streams(const void* dst, const void* first_src, size_t bytes) {
  return dst != first_src && bytes >= StreamingThreshold().load(std::memory_order_relaxed);
}

// --- fused full-width kernels ----------------------------------------------------------------------------------
//
// dst = srcs[0] op srcs[1] op ... for f32, f64 and i32 with streaming stores straight from the registers (large
// outputs; smaller ones take the auto-vectorised loops of TypedMany). Going through StreamedOut's
// tile instead alternates bursts of loads (reducing a tile) with bursts of streaming stores (writing it out), so
// fewer memory requests are in flight at a time: at 512 MiB an 8 KiB tile reached 62-79 % of memcpy's bandwidth,
// loads and stores interleaved in one loop 80-103 % (bench/README.md). One template serves every dtype and op
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
#define CB_FUSED_STREAM_LOOP(kBytes, STORE)                                                        \
  using V = typename VecOf<T, kBytes>::type;                                                       \
  const int inputs = kInputs != 0 ? kInputs : n;                                                   \
  auto src = [srcs](int k) { return static_cast<const T*>(srcs[k]); };                             \
  for (size_t i = begin; i < end; i += kBytes / sizeof(T)) {                                       \
    V r;                                                                                           \
    std::memcpy(&r, src(0) + i, kBytes);                                                           \
    PrefetchAhead(src(0) + i);                                                                     \
    for (int k = 1; k < inputs; ++k) {                                                             \
      V next;                                                                                      \
      std::memcpy(&next, src(k) + i, kBytes);                                                      \
      PrefetchAhead(src(k) + i);                                                                   \
      ApplyVec<Op>(r, r, next);                                                                    \
    }                                                                                              \
    STORE;                                                                                         \
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

// The two instantiations: the body is inlined into each, so the compiler vectorises it for that target.
__attribute__((target("avx2,fma,f16c"))) void ManyAvx2(DataType dtype, ReduceOp op, void* dst, const void* const* srcs,
                                                       int n, size_t count) {
  Many<true>(dtype, op, dst, srcs, n, count);
}

void ManyPortable(DataType dtype, ReduceOp op, void* dst, const void* const* srcs, int n, size_t count) {
  Many<false>(dtype, op, dst, srcs, n, count);
}

bool HasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
  return has;
}

std::atomic<bool> force_portable{false};

// Outputs from min(32 MiB, L3 / 3) up are streamed: from there a, b and dst together no longer fit in the
// last-level cache. Below, the output may still be in that cache when its consumer (the next step of a
// collective) reads it, and on this host streaming measured a few % slower at 4-16 MiB; at 64 and 512 MiB it
// measured faster (no read-for-ownership of dst). The cap: a VM's sysconf reports a last-level cache that need not
// be the guest's (480 MiB here, while this host's memcpy falls to memory speed between 32 and 64 MiB, a working set
// of 64-128 MiB), and the reported size alone would stream only from 160 MiB. bench/README.md has the measurement.
size_t DefaultStreamingThreshold() {
  constexpr size_t kCap = size_t{32} << 20;
  long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);  // 0 or -1 where unknown
  if (l3 <= 0) return kCap;
  return static_cast<size_t>(l3) / 3 < kCap ? static_cast<size_t>(l3) / 3 : kCap;
}

// --- scalar reference -----------------------------------------------------------------------------------------

template <typename T>
T RefApply(ReduceOp op, T a, T b) {
  switch (op) {
    case ReduceOp::kSum:
      return OpSum::Apply(a, b);
    case ReduceOp::kProd:
      return OpProd::Apply(a, b);
    case ReduceOp::kMax:
      if constexpr (std::is_floating_point_v<T>) {
        if (a != a) return a;
        if (b != b) return b;
      }
      return a > b ? a : b;  // b on ties, as the kernels: max(+0, -0) is -0 in both
    case ReduceOp::kMin:
      if constexpr (std::is_floating_point_v<T>) {
        if (a != a) return a;
        if (b != b) return b;
      }
      return a < b ? a : b;
  }
  return a;
}

template <typename T>
void RefTyped(ReduceOp op, void* dst, const void* a, const void* b, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    T x, y;
    std::memcpy(&x, static_cast<const char*>(a) + i * sizeof(T), sizeof(T));
    std::memcpy(&y, static_cast<const char*>(b) + i * sizeof(T), sizeof(T));
    T r = RefApply(op, x, y);
    std::memcpy(static_cast<char*>(dst) + i * sizeof(T), &r, sizeof(T));
  }
}

void RefHalf(bool bf16, ReduceOp op, void* dst, const void* a, const void* b, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    uint16_t x, y;
    std::memcpy(&x, static_cast<const char*>(a) + 2 * i, 2);
    std::memcpy(&y, static_cast<const char*>(b) + 2 * i, 2);
    float fx = bf16 ? BF16ToFloat(x) : HalfToFloat(x);
    float fy = bf16 ? BF16ToFloat(y) : HalfToFloat(y);
    float r = RefApply(op, fx, fy);
    uint16_t h = bf16 ? FloatToBF16(r) : FloatToHalf(r);
    std::memcpy(static_cast<char*>(dst) + 2 * i, &h, 2);
  }
}

}  // namespace

void ReduceMany(DataType dtype, ReduceOp op, void* dst, const void* const* srcs, int n, size_t count) {
  if (count == 0 || n <= 0) return;
  if (HasAvx2() && !force_portable.load(std::memory_order_relaxed)) {
    ManyAvx2(dtype, op, dst, srcs, n, count);
  } else {
    ManyPortable(dtype, op, dst, srcs, n, count);
  }
}

void Copy(void* dst, const void* src, size_t bytes) {
  if (bytes == 0 || dst == src) return;
  if (bytes < StreamingThreshold().load(std::memory_order_relaxed)) {
    std::memcpy(dst, src, bytes);
    return;
  }
  const bool avx2 = HasAvx2() && !force_portable.load(std::memory_order_relaxed);
  char* d = static_cast<char*>(dst);
  const char* s = static_cast<const char*>(src);
  auto part = [&](size_t begin, size_t end, bool streamed) {
    if (!streamed) {
      std::memcpy(d + begin, s + begin, end - begin);
    } else if (avx2) {
      StreamCopyAvx2(d + begin, s + begin, end - begin);
    } else {
      StreamCopySse2(d + begin, s + begin, end - begin);
    }
  };
  // dst from a line boundary: StreamCopy* writes each line whole before moving to the next page; a line split
  // between two of its iterations leaves half-filled write-combining buffers (18 GB/s instead of 25 at 512 MiB).
  StreamedParts<kLine, kLine>(d, bytes, part);
}

void Reduce(DataType dtype, ReduceOp op, void* dst, const void* a, const void* b, size_t count) {
  const void* srcs[2] = {a, b};
  ReduceMany(dtype, op, dst, srcs, 2, count);
}

void ReduceReference(DataType dtype, ReduceOp op, void* dst, const void* a, const void* b, size_t count) {
  switch (dtype) {
    case DataType::kF32:
      return RefTyped<float>(op, dst, a, b, count);
    case DataType::kF64:
      return RefTyped<double>(op, dst, a, b, count);
    case DataType::kI32:
      return RefTyped<int32_t>(op, dst, a, b, count);
    case DataType::kF16:
      return RefHalf(false, op, dst, a, b, count);
    case DataType::kBF16:
      return RefHalf(true, op, dst, a, b, count);
  }
}

const char* KernelIsa() { return HasAvx2() && !force_portable.load() ? "avx2+f16c" : "sse2"; }

bool ForcePortableKernels(bool portable) { return force_portable.exchange(portable); }

size_t StreamingThresholdBytes() { return StreamingThreshold().load(); }

size_t SetStreamingThresholdBytes(size_t bytes) { return StreamingThreshold().exchange(bytes); }

}  // namespace native
}  // namespace commbench
