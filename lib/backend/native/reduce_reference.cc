// ReduceReference (reduce.h): the scalar reference the kernels are tested against, one element at a time.
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "lib/backend/native/reduce.h"
#include "lib/backend/native/reduce_ops.h"
#include "lib/core/half.h"

namespace commbench {
namespace native {
namespace {

template <typename T>
T RefApply(ReduceOp op, T a, T b) {
  switch (op) {
    case ReduceOp::kSum:
      return internal::OpSum::Apply(a, b);
    case ReduceOp::kProd:
      return internal::OpProd::Apply(a, b);
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

}  // namespace native
}  // namespace commbench
