#include "lib/core/types.h"

#include "lib/core/name_table.h"

namespace commbench {
namespace {

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

}  // namespace

std::string_view Name(Collective c) { return NameOf(kCollectives, c); }
std::string_view Name(DataType t) { return NameOf(kDataTypes, t); }
std::string_view Name(ReduceOp r) { return NameOf(kReduceOps, r); }

StatusOr<Collective> ParseCollective(std::string_view s) {
  if (s == "reduce-scatter" || s == "reducescatter") return Collective::kReduceScatter;
  return ParseName(kCollectives, s, "unknown collective");
}
StatusOr<DataType> ParseDataType(std::string_view s) {
  if (s == "float") return DataType::kF32;
  if (s == "double") return DataType::kF64;
  if (s == "int") return DataType::kI32;
  if (s == "half") return DataType::kF16;
  return ParseName(kDataTypes, s, "unknown dtype");
}
StatusOr<ReduceOp> ParseReduceOp(std::string_view s) { return ParseName(kReduceOps, s, "unknown reduce op"); }

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
  static const auto* v = new std::vector<Collective>(ValuesOf(kCollectives));
  return *v;
}
const std::vector<DataType>& AllDataTypes() {
  static const auto* v = new std::vector<DataType>(ValuesOf(kDataTypes));
  return *v;
}
const std::vector<ReduceOp>& AllReduceOps() {
  static const auto* v = new std::vector<ReduceOp>(ValuesOf(kReduceOps));
  return *v;
}

}  // namespace commbench
