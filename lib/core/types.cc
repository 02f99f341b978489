#include "lib/core/types.h"

#include <array>
#include <utility>

namespace commbench {
namespace {

template <typename E, size_t N>
using NameTable = std::array<std::pair<E, std::string_view>, N>;

constexpr NameTable<Collective, 3> kCollectives{{
    {Collective::kAllreduce, "allreduce"},
    {Collective::kAllgather, "allgather"},
    {Collective::kReduceScatter, "reduce_scatter"},
}};
constexpr NameTable<DataType, 5> kDataTypes{{
    {DataType::kF32, "f32"},
    {DataType::kF64, "f64"},
    {DataType::kI32, "i32"},
    {DataType::kF16, "f16"},
    {DataType::kBF16, "bf16"},
}};
constexpr NameTable<ReduceOp, 4> kReduceOps{{
    {ReduceOp::kSum, "sum"},
    {ReduceOp::kMax, "max"},
    {ReduceOp::kMin, "min"},
    {ReduceOp::kProd, "prod"},
}};

template <typename E, size_t N>
std::string_view Lookup(const NameTable<E, N>& table, E value) {
  for (const auto& [e, name] : table) {
    if (e == value) return name;
  }
  return "?";
}

template <typename E, size_t N>
StatusOr<E> Parse(const NameTable<E, N>& table, std::string_view s, std::string_view what) {
  std::string accepted;
  for (const auto& [e, name] : table) {
    if (name == s) return e;
    if (!accepted.empty()) accepted += ", ";
    accepted += name;
  }
  return InvalidArgument("unknown " + std::string(what) + " '" + std::string(s) + "' (accepted: " +
                         accepted + ")");
}

template <typename E, size_t N>
std::vector<E> Values(const NameTable<E, N>& table) {
  std::vector<E> out;
  for (const auto& entry : table) out.push_back(entry.first);
  return out;
}

}  // namespace

std::string_view Name(Collective c) { return Lookup(kCollectives, c); }
std::string_view Name(DataType t) { return Lookup(kDataTypes, t); }
std::string_view Name(ReduceOp r) { return Lookup(kReduceOps, r); }

StatusOr<Collective> ParseCollective(std::string_view s) {
  if (s == "reduce-scatter" || s == "reducescatter") return Collective::kReduceScatter;
  return Parse(kCollectives, s, "collective");
}
StatusOr<DataType> ParseDataType(std::string_view s) {
  if (s == "float") return DataType::kF32;
  if (s == "double") return DataType::kF64;
  if (s == "int") return DataType::kI32;
  if (s == "half") return DataType::kF16;
  return Parse(kDataTypes, s, "dtype");
}
StatusOr<ReduceOp> ParseReduceOp(std::string_view s) { return Parse(kReduceOps, s, "reduce op"); }

size_t SizeOf(DataType t) {
  switch (t) {
    case DataType::kF32:
    case DataType::kI32:
      return 4;
    case DataType::kF64:
      return 8;
    case DataType::kF16:
    case DataType::kBF16:
      return 2;
  }
  return 0;
}

bool IsReduction(Collective c) { return c != Collective::kAllgather; }

const std::vector<Collective>& AllCollectives() {
  static const auto* v = new std::vector<Collective>(Values(kCollectives));
  return *v;
}
const std::vector<DataType>& AllDataTypes() {
  static const auto* v = new std::vector<DataType>(Values(kDataTypes));
  return *v;
}
const std::vector<ReduceOp>& AllReduceOps() {
  static const auto* v = new std::vector<ReduceOp>(Values(kReduceOps));
  return *v;
}

}  // namespace commbench
