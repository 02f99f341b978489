// Copy (reduce.h): memcpy below the streaming threshold, non-temporal stores from it.
#include <immintrin.h>

#include <cstddef>
#include <cstring>

#include "lib/backend/native/cpu_features.h"
#include "lib/backend/native/reduce.h"
#include "lib/backend/native/stream_store.h"
#include "lib/backend/native/streaming_threshold.h"

namespace commbench {
namespace native {
namespace {

using internal::StreamedParts;

// A large copy, src unaligned: one 64-byte line from each of four 4 KiB pages in turn, as glibc's large memcpy
// does. One read stream alone leaves the hardware prefetcher fewer lines in flight: at 512 MiB a plain loop
// reached 20-21 GB/s, four pages 25 GB/s, glibc's memcpy 23 GB/s (bench/archive.md). Lines are copied with
// kVec-byte vectors; the rest after the last whole four pages goes in order. A macro, as CB_FUSED_STREAM_LOOP
// (reduce_kernels.cc): the vector copy's intrinsics need the enclosing function's target.
constexpr size_t kPage = 4096, kPages = 4, kLine = 64;

#define CB_STREAM_COPY_PAGES(kVec, COPY_VEC)                                        \
  size_t i = 0;                                                                     \
  for (; i + kPages * kPage <= bytes; i += kPages * kPage) {                        \
    for (size_t off = 0; off < kPage; off += kLine) {                               \
      for (size_t p = 0; p < kPages; ++p) {                                         \
        for (size_t v = 0; v < kLine; v += kVec) COPY_VEC(i + p * kPage + off + v); \
      }                                                                             \
    }                                                                               \
  }                                                                                 \
  for (; i < bytes; i += kVec) COPY_VEC(i);

// bytes a multiple of 64, d 64-byte aligned; s needs no alignment.
__attribute__((target("avx2"), noinline)) void StreamCopyAvx2(char* d, const char* s, size_t bytes) {
#define CB_COPY32(at)                                       \
  _mm256_stream_si256(reinterpret_cast<__m256i*>(d + (at)), \
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

}  // namespace

void Copy(void* dst, const void* src, size_t bytes) {
  if (bytes == 0 || dst == src) return;
  if (bytes < internal::EffectiveStreamingThreshold()) {
    std::memcpy(dst, src, bytes);
    return;
  }
  const bool avx2 = internal::UseAvx2Kernels();
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

}  // namespace native
}  // namespace commbench
