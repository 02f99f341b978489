// f16 / bf16 <-> f32 conversions of the reduction kernels, each giving the same bits as the scalar conversions of
// lib/core/half.h (HalfToFloat, FloatToHalf, BF16ToFloat, FloatToBF16): round to nearest even, NaN kept quiet.
// - Loops over arrays (the portable build's f32 tiles): branch-free, so that they vectorise with SSE2.
// - 16 elements in AVX2 registers (the avx2+f16c build's one-pass kernels, FusedHalf in reduce_kernels.cc).
// All always inline and in this header: each is inlined into the kernel loops of the instantiation (and target)
// that calls it. Internal to the native backend.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "lib/backend/native/reduce_ops.h"
#include "lib/core/half.h"

namespace commbench {
namespace native {
namespace internal {

// --- arrays (portable, SSE2) ----------------------------------------------------------------------------------

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
    const uint32_t magnitude =
        (special & (shifted + (224u << 23))) | (tiny & subnormal) | (~(special | tiny) & (shifted + (112u << 23)));
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

// The portable build's tiles (the AVX2 build converts in registers, Widen16 / Narrow16 below).
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

// --- registers (AVX2 + F16C) ------------------------------------------------------------------------------------

// Bf16Narrow on 8 lanes of an f32 op result (ApplyPs in reduce_kernels.cc), the bf16 in the high half of each
// 32-bit lane (the low half is left unspecified). Shortcuts that give Bf16Narrow's bits because the inputs were
// widened from bf16, so their low 16 bits are zero:
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
    const __m256 quiet =
        _mm256_and_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q), _mm256_castsi256_ps(_mm256_set1_epi32(0x400000)));
    return _mm256_castps_si256(_mm256_or_ps(v, quiet));
  }
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

// Op decides the bf16 rounding shortcut (Bf16NarrowHigh); f16 rounds to nearest even with vcvtps2ph.
template <bool kBf16, typename Op>
__attribute__((target("avx2,f16c"))) CB_INLINE __m256i Narrow16(__m256 lo, __m256 hi) {
  if constexpr (kBf16) {
    return _mm256_blend_epi16(_mm256_srli_epi32(Bf16NarrowHigh<Op>(lo), 16), Bf16NarrowHigh<Op>(hi), 0xaa);
  } else {
    constexpr int kRound = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
    return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm256_cvtps_ph(lo, kRound)), _mm256_cvtps_ph(hi, kRound), 1);
  }
}

}  // namespace internal
}  // namespace native
}  // namespace commbench
