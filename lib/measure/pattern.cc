#include "lib/measure/pattern.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

#include "lib/core/half.h"

namespace commbench {

double LoadElement(DataType dtype, const void* base, size_t index) {
  const char* p = static_cast<const char*>(base) + index * SizeOf(dtype);
  switch (dtype) {
    case DataType::kF32: {
      float v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case DataType::kF64: {
      double v;
      std::memcpy(&v, p, 8);
      return v;
    }
    case DataType::kI32: {
      int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case DataType::kF16:
    case DataType::kBF16: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return dtype == DataType::kF16 ? HalfToFloat(v) : BF16ToFloat(v);
    }
  }
  return 0;
}

void StoreElement(DataType dtype, void* base, size_t index, double value) {
  char* p = static_cast<char*>(base) + index * SizeOf(dtype);
  switch (dtype) {
    case DataType::kF32: {
      float v = static_cast<float>(value);
      std::memcpy(p, &v, 4);
      return;
    }
    case DataType::kF64:
      std::memcpy(p, &value, 8);
      return;
    case DataType::kI32: {
      int32_t v = static_cast<int32_t>(value);
      std::memcpy(p, &v, 4);
      return;
    }
    case DataType::kF16:
    case DataType::kBF16: {
      float f = static_cast<float>(value);
      uint16_t v = dtype == DataType::kF16 ? FloatToHalf(f) : FloatToBF16(f);
      std::memcpy(p, &v, 2);
      return;
    }
  }
}

double PatternValue(const OpRequest& request, int rank, int group_size, size_t index, uint64_t iter) {
  const uint64_t r = static_cast<uint64_t>(rank);
  if (request.op == Collective::kAllgather) {
    // Distinct per rank so that a block landing at the wrong offset shows.
    return static_cast<double>((r * 31 + index * 7 + iter * 3) % 61) - 30.0;
  }
  if (request.reduce == ReduceOp::kProd) {
    // +-1 everywhere except one rank per element contributes +-2: the product stays within +-2.
    double sign = ((r * 3 + index + iter) % 2) ? -1.0 : 1.0;
    bool doubled = static_cast<uint64_t>(rank) == (index + iter) % static_cast<uint64_t>(group_size);
    return sign * (doubled ? 2.0 : 1.0);
  }
  return static_cast<double>((r * 7 + index * 13 + iter * 5) % 9) - 4.0;
}

double ExpectedValue(const OpRequest& request, int rank, int group_size, size_t index, uint64_t iter) {
  if (request.op == Collective::kAllgather) {
    size_t owner = index / request.count;
    return PatternValue(request, static_cast<int>(owner), group_size, index % request.count, iter);
  }
  size_t source_index = request.op == Collective::kReduceScatter ? static_cast<size_t>(rank) * request.count + index
                                                                 : index;
  double acc = PatternValue(request, 0, group_size, source_index, iter);
  for (int r = 1; r < group_size; ++r) {
    double v = PatternValue(request, r, group_size, source_index, iter);
    switch (request.reduce) {
      case ReduceOp::kSum:
        acc += v;
        break;
      case ReduceOp::kProd:
        acc *= v;
        break;
      case ReduceOp::kMax:
        acc = std::max(acc, v);
        break;
      case ReduceOp::kMin:
        acc = std::min(acc, v);
        break;
    }
  }
  return acc;
}

void FillInput(const OpRequest& request, int rank, int group_size, uint64_t iter, std::vector<char>* buffer) {
  size_t n = SendCount(request, group_size);
  buffer->resize(n * SizeOf(request.dtype));
  for (size_t i = 0; i < n; ++i) {
    StoreElement(request.dtype, buffer->data(), i, PatternValue(request, rank, group_size, i, iter));
  }
}

Status CheckOutput(const OpRequest& request, int rank, int group_size, uint64_t iter,
                   const std::vector<char>& buffer) {
  size_t n = RecvCount(request, group_size);
  if (buffer.size() < n * SizeOf(request.dtype)) {
    return Internal("receive buffer holds " + std::to_string(buffer.size()) + " bytes, expected " +
                    std::to_string(n * SizeOf(request.dtype)));
  }
  size_t wrong = 0;
  size_t first = 0;
  double got_first = 0, want_first = 0;
  for (size_t i = 0; i < n; ++i) {
    double got = LoadElement(request.dtype, buffer.data(), i);
    double want = ExpectedValue(request, rank, group_size, i, iter);
    if (!(got == want)) {
      if (wrong == 0) {
        first = i;
        got_first = got;
        want_first = want;
      }
      ++wrong;
    }
  }
  if (wrong == 0) return OkStatus();
  std::ostringstream msg;
  msg << wrong << " of " << n << " elements wrong in iteration " << iter << "; first at index " << first << ": got "
      << got_first << ", expected " << want_first;
  return DataLoss(msg.str());
}

}  // namespace commbench
