// Non-temporal (streaming) output for the reduction kernels and Copy.
//
// A large out-of-place output is written with non-temporal stores. Ordinary stores first read every destination
// line into the cache (read-for-ownership), so dst = a op b moves 4 streams of memory traffic instead of 3;
// streaming stores skip that read and do not evict the caller's working set. The price: dst is not in the cache
// afterwards, which only matters when it would have fitted there, hence the size threshold
// (StreamingThresholdBytes, streaming_threshold.h). Reductions stream straight from their registers (FusedHalf,
// FusedStreamAvx2/Sse2 in reduce_kernels.cc); only the portable half kernels reduce each tile of the result into
// an aligned temporary in L1 and stream that out (StreamedOut). Large copies stream too (Copy, stream_copy.cc).
//
// All always inline and in this header: the templates take the kernels' lambdas and are inlined into each
// instantiation. Internal to the native backend.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "lib/backend/native/reduce_ops.h"
#include "lib/backend/native/streaming_threshold.h"

namespace commbench {
namespace native {
namespace internal {

// Whether an output of `bytes` is written with streaming stores. Accumulate (dst == srcs[0]) never does: its dst lines
// are read anyway, so there is no read-for-ownership to save, and streaming them out measured 25-60 % slower
// than ordinary stores at 16 MiB .. 512 MiB (bench/archive.md).
CB_INLINE bool Streams(const void* dst, const void* first_src, size_t bytes) {
  return dst != first_src && bytes >= EffectiveStreamingThreshold();
}

// How far ahead of the loads the streaming loops prefetch each input. Without it, the kernels whose loops are long
// per cache line (bf16: about 40 instructions per 64 bytes of output) keep fewer lines in flight than the out-of-
// order window allows and reach 67-72 % of memcpy at 512 MiB; with it 93-94 % (bench/archive.md).
constexpr size_t kPrefetchAheadBytes = 4096;

CB_INLINE void PrefetchAhead(const void* p) {
  _mm_prefetch(static_cast<const char*>(p) + kPrefetchAheadBytes, _MM_HINT_T0);
}

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

// Output bytes per streamed tile (the portable half kernels'). Small, so that loads and streaming stores stay
// interleaved: when full-width reductions still went through tiles, four f32 inputs at 512 MiB reached 85-86 % of
// memcpy with 512-byte tiles and 65-76 % with 8 KiB tiles (bench/archive.md).
constexpr size_t kStreamTileBytes = 512;

// Copies `bytes` (a multiple of 16) from the 16-byte aligned src to the 16-byte aligned dst without reading dst
// (SSE2, part of the x86-64 baseline).
CB_INLINE void StreamOutSse2(void* dst, const void* src, size_t bytes) {
  __m128i* d = static_cast<__m128i*>(dst);
  const __m128i* s = static_cast<const __m128i*>(src);
  for (size_t i = 0; i < bytes / 16; ++i) _mm_stream_si128(d + i, _mm_load_si128(s + i));
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

}  // namespace internal
}  // namespace native
}  // namespace commbench
