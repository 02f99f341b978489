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

namespace {

// Every expected output element is Encode(code) for a code in [0, kCodes): a sign, a mantissa in [128, 256) and an
// exponent, so distinct codes give distinct values. kCodes covers the largest group, so codes that differ in the
// rank term alone (A odd) never collide; the index and iteration terms (B, C odd) make shifts and stale buffers show.
constexpr uint64_t kCodes = 4096;
constexpr uint64_t kRankStep = 1;     // A
constexpr uint64_t kIndexStep = 3;    // B
constexpr uint64_t kIterStep = 5;     // C
constexpr uint64_t kCodeOffset = 11;  // D
// At most this many ranks shape one element of a reduction; the rest contribute the identity (0 or 1) or, for
// max/min, a value that never wins. It bounds partial sums (255 units) and products (a few factors of 2).
constexpr int kWindow = 8;

// Exponent of the unit of Encode: integers (prod divides by 2) for i32, otherwise values that are normal and exact
// in f16 and bf16 with no result above 255 * 2^6 = 16320.
int ExponentOffset(DataType dtype) { return dtype == DataType::kI32 ? 1 : -9; }

uint64_t Code(uint64_t rank_term, size_t index, uint64_t iter) {
  return (kRankStep * rank_term + kIndexStep * (index % kCodes) + kIterStep * (iter % kCodes) + kCodeOffset) %
         kCodes;
}

// Decodes a code: value = sign * mantissa * 2^exponent.
struct Parts {
  double sign;
  int mantissa;
  int exponent;
};
Parts Decode(uint64_t code, DataType dtype) {
  return Parts{(code & 1) ? -1.0 : 1.0, 128 + static_cast<int>((code >> 1) & 127),
               static_cast<int>(code >> 8) + ExponentOffset(dtype)};
}
double Encode(uint64_t code, DataType dtype) {
  Parts p = Decode(code, dtype);
  return p.sign * std::ldexp(p.mantissa, p.exponent);
}

// A small deterministic mix of rank, element and iteration for the shape of the contributions.
uint64_t Mix(uint64_t a, uint64_t b, uint64_t c) {
  uint64_t x = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E5Dull) * 0xBF58476D1CE4E5B9ull ^
               (c + 0x1234567ull) * 0x94D049BB133111EBull;
  x ^= x >> 31;
  x *= 0xD6E8FEB86677B8B7ull;
  return x ^ (x >> 29);
}

// The code of the reduced element at send-buffer index `index` (reduce-scatter: the owner's slice, by owner).
uint64_t ReductionCode(const OpRequest& request, size_t index, uint64_t iter) {
  if (request.op == Collective::kReduceScatter) {
    return Code(index / request.count, index % request.count, iter);
  }
  return Code(0, index, iter);
}

}  // namespace

double PatternValue(const OpRequest& request, int rank, int group_size, size_t index, uint64_t iter) {
  const uint64_t r = static_cast<uint64_t>(rank);
  const DataType dtype = request.dtype;
  if (request.op == Collective::kAllgather) return Encode(Code(r, index, iter), dtype);
  const Parts want = Decode(ReductionCode(request, index, iter), dtype);
  const uint64_t n = static_cast<uint64_t>(group_size);
  const int window = std::min(group_size, kWindow);
  // The element's window of ranks starts at a rank that moves with the element and the iteration; position 0 leads.
  const uint64_t start = (index % n + 3 * (iter % n)) % n;
  const int pos = static_cast<int>((r + n - start) % n);
  const uint64_t mix = Mix(r, index, iter);
  if (request.reduce == ReduceOp::kMax || request.reduce == ReduceOp::kMin) {
    // The leader holds the result; everyone else holds a value beyond every result (below for max, above for min).
    if (pos == 0) return want.sign * std::ldexp(want.mantissa, want.exponent);
    const int top = ExponentOffset(dtype) + 15 + 8;  // 2^top > 255 * 2^(largest exponent)
    double beyond = std::ldexp(8 + static_cast<double>(mix % 8), top - 3);  // in [2^top, 2^(top+1))
    return request.reduce == ReduceOp::kMax ? -beyond : beyond;
  }
  if (pos >= window) return request.reduce == ReduceOp::kSum ? 0.0 : 1.0;
  if (request.reduce == ReduceOp::kSum) {
    // Units of 2^exponent, all of the result's sign: followers 1..4 units each, the leader the rest (>= 100), so
    // every partial sum in any order is at most 255 units (exact in bf16) and no single input equals the result.
    auto units = [&](int p) {
      uint64_t rp = (start + static_cast<uint64_t>(p)) % n;
      return 1 + static_cast<int>(Mix(rp, index, iter) % 4);
    };
    int k = 0;
    if (pos == 0) {
      k = want.mantissa;
      for (int p = 1; p < window; ++p) k -= units(p);
    } else {
      k = units(pos);
    }
    return want.sign * std::ldexp(k, want.exponent);
  }
  // Prod: follower 1 gives +-2, the other followers +-1, the leader the result divided by their product (so
  // mantissa * 2^(exponent-1), with the sign that makes the product right); every partial product stays exact.
  auto factor = [&](int p) {
    uint64_t rp = (start + static_cast<uint64_t>(p)) % n;
    double sign = (Mix(rp, index, iter) & 1) ? -1.0 : 1.0;
    return p == 1 ? 2.0 * sign : sign;
  };
  if (pos > 0) return factor(pos);
  double sign = want.sign;
  int exponent = want.exponent;
  for (int p = 1; p < window; ++p) {
    double f = factor(p);
    if (f < 0) sign = -sign;
    if (std::fabs(f) == 2.0) --exponent;
  }
  return sign * std::ldexp(want.mantissa, exponent);
}

double ExpectedValue(const OpRequest& request, int rank, int /*group_size*/, size_t index, uint64_t iter) {
  if (request.op == Collective::kAllgather) {
    size_t owner = index / request.count;
    return Encode(Code(owner, index % request.count, iter), request.dtype);
  }
  // Computed from the code alone, not by reducing the inputs again; pattern_test proves the inputs reduce to it.
  size_t source_index = request.op == Collective::kReduceScatter ? static_cast<size_t>(rank) * request.count + index
                                                                 : index;
  return Encode(ReductionCode(request, source_index, iter), request.dtype);
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
