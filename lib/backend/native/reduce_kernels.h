// The two instantiations of the reduction kernels (reduce_kernels.cc); reduce.cc's ReduceMany picks one per call.
// Both compute ReduceMany (reduce.h) for n >= 1 and count >= 1. Internal to the native backend.
#pragma once

#include <cstddef>

#include "lib/core/types.h"

namespace commbench {
namespace native {
namespace internal {

// Compiled for avx2,fma,f16c: call only where UseAvx2Kernels() (cpu_features.h) holds.
void ManyAvx2(DataType dtype, ReduceOp op, void* dst, const void* const* srcs, int n, size_t count);

// Compiled for the x86-64 baseline (SSE2).
void ManyPortable(DataType dtype, ReduceOp op, void* dst, const void* const* srcs, int n, size_t count);

}  // namespace internal
}  // namespace native
}  // namespace commbench
