// Which kernels this process runs: the avx2+f16c instantiation when the CPU has both and the portable kernels are
// not forced (ForcePortableKernels, reduce.h), the SSE2 baseline otherwise. Asked on every Reduce and Copy call,
// hence inline. Internal to the native backend; callers use reduce.h (KernelIsa, ForcePortableKernels).
#pragma once

#include <cpuid.h>

#include <atomic>

namespace commbench {
namespace native {
namespace internal {

// Whether the CPU has AVX2 and F16C; asked of the CPU once.
inline bool CpuHasAvx2F16c() {
  static const bool has = [] {
    // F16C is CPUID leaf 1, ECX bit 29, asked directly: clang 14's __builtin_cpu_supports does not know "f16c".
    unsigned eax, ebx, ecx, edx;
    return __builtin_cpu_supports("avx2") && __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & bit_F16C) != 0;
  }();
  return has;
}

// Set by ForcePortableKernels (tests and benchmarks compare both instantiations).
extern std::atomic<bool> force_portable_kernels;

// Whether to run the avx2+f16c kernels now.
inline bool UseAvx2Kernels() { return CpuHasAvx2F16c() && !force_portable_kernels.load(std::memory_order_relaxed); }

}  // namespace internal
}  // namespace native
}  // namespace commbench
