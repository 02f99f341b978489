// The public entry points of reduce.h but Copy (stream_copy.cc) and ReduceReference (reduce_reference.cc): the
// choice between the kernels' two instantiations (reduce_kernels.cc) and the process-wide settings.
#include "lib/backend/native/reduce.h"

#include <atomic>

#include "lib/backend/native/cpu_features.h"
#include "lib/backend/native/reduce_kernels.h"
#include "lib/backend/native/streaming_threshold.h"

namespace commbench {
namespace native {

void ReduceMany(DataType dtype, ReduceOp op, void* dst, const void* const* srcs, int n, size_t count) {
  if (count == 0 || n <= 0) return;
  if (internal::UseAvx2Kernels()) {
    internal::ManyAvx2(dtype, op, dst, srcs, n, count);
  } else {
    internal::ManyPortable(dtype, op, dst, srcs, n, count);
  }
}

void Reduce(DataType dtype, ReduceOp op, void* dst, const void* a, const void* b, size_t count) {
  const void* srcs[2] = {a, b};
  ReduceMany(dtype, op, dst, srcs, 2, count);
}

const char* KernelIsa() { return internal::UseAvx2Kernels() ? "avx2+f16c" : "sse2"; }

bool ForcePortableKernels(bool portable) { return internal::force_portable_kernels.exchange(portable); }

size_t StreamingThresholdBytes() { return internal::StreamingThreshold().load(); }

size_t SetStreamingThresholdBytes(size_t bytes) { return internal::StreamingThreshold().exchange(bytes); }

StreamFinalOutputs::StreamFinalOutputs(size_t bytes) : previous_(internal::final_output_threshold) {
  internal::final_output_threshold = bytes;
}

StreamFinalOutputs::~StreamFinalOutputs() { internal::final_output_threshold = previous_; }

}  // namespace native
}  // namespace commbench
