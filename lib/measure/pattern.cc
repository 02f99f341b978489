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
  return (kRankStep * rank_term + kIndexStep * (index % kCodes) + kIterStep * (iter % kCodes) + kCodeOffset) % kCodes;
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

// Every code's value in one dtype's bytes: the per-element loops of FillInput and CheckOutput look codes up here
// instead of encoding each element (ldexp and a dtype switch per element).
std::vector<char> EncodeAllCodes(DataType dtype) {
  std::vector<char> bytes(kCodes * SizeOf(dtype));
  for (uint64_t code = 0; code < kCodes; ++code) StoreElement(dtype, bytes.data(), code, Encode(code, dtype));
  return bytes;
}
const std::vector<char>& EncodedCodes(DataType dtype) {
  static const std::vector<char> tables[] = {EncodeAllCodes(DataType::kF32), EncodeAllCodes(DataType::kF64),
                                             EncodeAllCodes(DataType::kI32), EncodeAllCodes(DataType::kF16),
                                             EncodeAllCodes(DataType::kBF16)};
  return tables[static_cast<int>(dtype)];
}

// 2^e for the exponents the patterns use (a few below and above ExponentOffset's range), exact as ldexp.
double Pow2(int e) {
  static const std::vector<double> powers = [] {
    std::vector<double> p(64);
    for (int i = 0; i < 64; ++i) p[i] = std::ldexp(1.0, i - 32);
    return p;
  }();
  return powers[static_cast<size_t>(e + 32)];
}

// Code(owner, offset, iter) for offset = 0, 1, 2, ...: the same sum modulo kCodes (a power of two), stepped.
static_assert((kCodes & (kCodes - 1)) == 0, "CodeSequence reduces modulo kCodes with a mask");
class CodeSequence {
 public:
  CodeSequence(uint64_t owner, uint64_t iter) : code_(kRankStep * owner + kIterStep * iter + kCodeOffset) {}
  uint64_t At(size_t offset) const { return (code_ + kIndexStep * offset) & (kCodes - 1); }

 private:
  uint64_t code_;
};

// Elements whose bytes differ from their code's: counts them and keeps the first. Bits is the element's width.
template <typename Bits>
void CompareBlock(const char* got, const std::vector<char>& encoded, CodeSequence codes, size_t n, size_t base,
                  size_t* wrong, size_t* first) {
  for (size_t j = 0; j < n; ++j) {
    Bits have, want;
    std::memcpy(&have, got + (base + j) * sizeof(Bits), sizeof(Bits));
    std::memcpy(&want, encoded.data() + codes.At(j) * sizeof(Bits), sizeof(Bits));
    if (have != want) {
      if (*wrong == 0) *first = base + j;
      ++*wrong;
    }
  }
}

// Allgather inputs are plain codes of this rank: table lookups.
void FillAllgather(const OpRequest& request, int rank, uint64_t iter, char* out) {
  const std::vector<char>& encoded = EncodedCodes(request.dtype);
  const size_t esize = SizeOf(request.dtype);
  const CodeSequence codes(static_cast<uint64_t>(rank), iter);
  for (size_t i = 0; i < request.count; ++i) std::memcpy(out + i * esize, &encoded[codes.At(i) * esize], esize);
}

// PatternValue for every element of a reduction's send buffer, with the window's start and the reduce-scatter
// owner stepped instead of divided for; pattern_test compares it with PatternValue element by element.
void FillReduction(const OpRequest& request, int rank, int group_size, uint64_t iter, char* out) {
  const DataType dtype = request.dtype;
  const size_t total = SendCount(request, group_size);
  const uint64_t n = static_cast<uint64_t>(group_size);
  const uint64_t r = static_cast<uint64_t>(rank);
  const int window = std::min(group_size, kWindow);
  const bool extreme = request.reduce == ReduceOp::kMax || request.reduce == ReduceOp::kMin;
  const double beyond_unit = Pow2(ExponentOffset(dtype) + 15 + 8 - 3);  // as in PatternValue
  // Reduce-scatter elements belong to blocks of `count` (owner = block); allreduce has one block.
  const size_t block = request.op == Collective::kReduceScatter ? request.count : total;
  uint64_t owner = 0;
  size_t offset = 0;
  CodeSequence codes(0, iter);
  uint64_t start = (3 * (iter % n)) % n;  // (index % n + 3 * (iter % n)) % n at index 0, then one more per index
  auto wrap = [n](uint64_t v) { return v >= n ? v - n : v; };
  for (size_t i = 0; i < total; ++i) {
    const Parts want = Decode(codes.At(offset), dtype);
    const int pos = static_cast<int>(r >= start ? r - start : r + n - start);
    double value;
    if (extreme) {
      const double beyond = static_cast<double>(8 + Mix(r, i, iter) % 8) * beyond_unit;
      value = pos == 0 ? want.sign * want.mantissa * Pow2(want.exponent)
                       : (request.reduce == ReduceOp::kMax ? -beyond : beyond);
    } else if (pos >= window) {
      value = request.reduce == ReduceOp::kSum ? 0.0 : 1.0;
    } else if (request.reduce == ReduceOp::kSum) {
      auto units = [&](int p) {
        return 1 + static_cast<int>(Mix(wrap(start + static_cast<uint64_t>(p)), i, iter) % 4);
      };
      int k = pos == 0 ? want.mantissa : units(pos);
      if (pos == 0) {
        for (int p = 1; p < window; ++p) k -= units(p);
      }
      value = want.sign * k * Pow2(want.exponent);
    } else {
      auto negative = [&](int p) { return (Mix(wrap(start + static_cast<uint64_t>(p)), i, iter) & 1) != 0; };
      if (pos > 0) {
        value = (pos == 1 ? 2.0 : 1.0) * (negative(pos) ? -1.0 : 1.0);
      } else {
        double sign = want.sign;
        for (int p = 1; p < window; ++p) sign = negative(p) ? -sign : sign;
        // Follower 1 (where the window has one) gives the only factor of 2.
        value = sign * want.mantissa * Pow2(window > 1 ? want.exponent - 1 : want.exponent);
      }
    }
    StoreElement(dtype, out, i, value);
    start = wrap(start + 1);
    if (++offset == block) {
      offset = 0;
      codes = CodeSequence(++owner, iter);
    }
  }
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
    const int top = ExponentOffset(dtype) + 15 + 8;                         // 2^top > 255 * 2^(largest exponent)
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
  size_t source_index =
      request.op == Collective::kReduceScatter ? static_cast<size_t>(rank) * request.count + index : index;
  return Encode(ReductionCode(request, source_index, iter), request.dtype);
}

void FillInput(const OpRequest& request, int rank, int group_size, uint64_t iter, std::vector<char>* buffer) {
  buffer->resize(SendCount(request, group_size) * SizeOf(request.dtype));
  if (request.op == Collective::kAllgather) {
    FillAllgather(request, rank, iter, buffer->data());
  } else {
    FillReduction(request, rank, group_size, iter, buffer->data());
  }
}

Status CheckOutput(const OpRequest& request, int rank, int group_size, uint64_t iter, const std::vector<char>& buffer) {
  const size_t n = RecvCount(request, group_size);
  if (buffer.size() < n * SizeOf(request.dtype)) {
    return Internal("receive buffer holds " + std::to_string(buffer.size()) + " bytes, expected " +
                    std::to_string(n * SizeOf(request.dtype)));
  }
  // The receive buffer in blocks of one owner each (ExpectedValue's codes): allgather one block per rank,
  // reduce-scatter this rank's block, allreduce a single block.
  const bool allgather = request.op == Collective::kAllgather;
  const size_t block = allgather ? request.count : n;
  const std::vector<char>& encoded = EncodedCodes(request.dtype);
  size_t wrong = 0;
  size_t first = 0;
  for (size_t base = 0; base < n; base += block) {
    uint64_t owner = 0;
    if (allgather) owner = base / block;
    if (request.op == Collective::kReduceScatter) owner = static_cast<uint64_t>(rank);
    const CodeSequence codes(owner, iter);
    switch (SizeOf(request.dtype)) {
      case 2:
        CompareBlock<uint16_t>(buffer.data(), encoded, codes, block, base, &wrong, &first);
        break;
      case 4:
        CompareBlock<uint32_t>(buffer.data(), encoded, codes, block, base, &wrong, &first);
        break;
      default:
        CompareBlock<uint64_t>(buffer.data(), encoded, codes, block, base, &wrong, &first);
        break;
    }
  }
  if (wrong == 0) return OkStatus();
  std::ostringstream msg;
  msg << wrong << " of " << n << " elements wrong in iteration " << iter << "; first at index " << first << ": got "
      << LoadElement(request.dtype, buffer.data(), first) << ", expected "
      << ExpectedValue(request, rank, group_size, first, iter);
  return DataLoss(msg.str());
}

}  // namespace commbench
