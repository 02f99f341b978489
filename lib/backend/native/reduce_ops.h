// The four reduction ops as elementwise functors (Op::Apply), shared by the kernels (reduce_kernels.cc, which
// instantiate them per target), the half conversions' narrowing shortcuts and the scalar reference. Semantics:
// reduce.h. Internal to the native backend; callers use reduce.h.
#pragma once

#include <cstdint>
#include <type_traits>

// Forces inlining into the caller, whose target attribute ("avx2,f16c" or the SSE2 baseline) then decides the
// instructions: the helpers in these headers are inlined into each instantiation of the kernels.
#define CB_INLINE inline __attribute__((always_inline))

namespace commbench {
namespace native {
namespace internal {

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

}  // namespace internal
}  // namespace native
}  // namespace commbench
