// Which kernels this process runs: the avx2+f16c instantiation when the CPU has both and the portable kernels are
// not forced (ForcePortableKernels, reduce.h), the SSE2 baseline otherwise. Asked on every Reduce and Copy call,
// hence inline. Internal to the native backend; callers use reduce.h (KernelIsa, ForcePortableKernels).
#pragma once

#include <atomic>

namespace commbench {
namespace native {
namespace internal {

// Whether the CPU has AVX2 and F16C; asked of the CPU once.
inline bool CpuHasAvx2F16c() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
  return has;
}

// Set by ForcePortableKernels (tests and benchmarks compare both instantiations).
extern std::atomic<bool> force_portable_kernels;

// Whether to run the avx2+f16c kernels now.
inline bool UseAvx2Kernels() { return CpuHasAvx2F16c() && !force_portable_kernels.load(std::memory_order_relaxed); }

}  // namespace internal
}  // namespace native
}  // namespace commbench
