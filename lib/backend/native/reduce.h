// Reduction kernels of the native backend: elementwise a op b over the five dtypes, vectorised (AVX2+F16C when
// the CPU has it, SSE2 otherwise; chosen once at start-up). Half types are widened to f32, reduced, and rounded
// back once (round to nearest even), so an n-input reduction rounds once, not n-1 times.
//
// Semantics shared with the scalar reference: sum and prod are IEEE; max and min return NaN when either operand
// is NaN (as torch.maximum), so a NaN never disappears depending on the algorithm's operand order.
#pragma once

#include <cstddef>

#include "lib/core/types.h"

namespace commbench {
namespace native {

// dst[i] = a[i] op b[i] for i < count. dst may be a itself (accumulate) but must not overlap b or partially
// overlap a.
void Reduce(DataType dtype, ReduceOp op, void* dst, const void* a, const void* b, size_t count);

// dst[i] = srcs[0][i] op srcs[1][i] op ... op srcs[n-1][i]; n >= 1. dst may be srcs[0] itself. Half types
// accumulate all n inputs in f32 and round once.
void ReduceMany(DataType dtype, ReduceOp op, void* dst, const void* const* srcs, int n, size_t count);

// memcpy for buffers that do not overlap, except that from StreamingThresholdBytes() up dst is written with
// non-temporal stores (no read-for-ownership of dst; faster than glibc's memcpy there, bench/archive.md).
void Copy(void* dst, const void* src, size_t bytes);

// The scalar reference the kernels are tested against: one element at a time, same semantics.
void ReduceReference(DataType dtype, ReduceOp op, void* dst, const void* a, const void* b, size_t count);

// "avx2+f16c" or "sse2": which kernels this process runs.
const char* KernelIsa();

// Forces the portable kernels (tests and benchmarks compare both); returns the previous setting.
bool ForcePortableKernels(bool portable);

// Out-of-place outputs of at least this many bytes are written with non-temporal (cache-bypassing) stores;
// smaller ones, which a consumer may still find in the cache, with ordinary stores. The default and why:
// streaming_threshold.cc. The setter (tests and benchmarks; SIZE_MAX turns streaming off) returns the previous value.
size_t StreamingThresholdBytes();
size_t SetStreamingThresholdBytes(size_t bytes);

// While it lives, this thread's outputs of at least `bytes` stream too, below the process-wide threshold: for
// outputs that nothing reads again soon, such as a collective's final output (the shm transport, for pulls no
// peer reads later in the op). Saves the read-for-ownership of every destination line.
class StreamFinalOutputs {
 public:
  explicit StreamFinalOutputs(size_t bytes);
  ~StreamFinalOutputs();
  StreamFinalOutputs(const StreamFinalOutputs&) = delete;
  StreamFinalOutputs& operator=(const StreamFinalOutputs&) = delete;

 private:
  size_t previous_;
};

}  // namespace native
}  // namespace commbench
