// The shared vocabulary of every backend: collectives, element types, reductions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "lib/core/name_table.h"
#include "lib/core/status.h"

namespace commbench {

enum class Collective { kAllreduce, kAllgather, kReduceScatter };
enum class DataType { kF32, kF64, kI32, kF16, kBF16 };
enum class ReduceOp { kSum, kMax, kMin, kProd };

std::string_view Name(Collective c);
std::string_view Name(DataType t);
std::string_view Name(ReduceOp r);

StatusOr<Collective> ParseCollective(std::string_view s);
StatusOr<DataType> ParseDataType(std::string_view s);
StatusOr<ReduceOp> ParseReduceOp(std::string_view s);

size_t SizeOf(DataType t);
bool IsReduction(Collective c);  // allreduce and reduce-scatter take a ReduceOp

const std::vector<Collective>& AllCollectives();
const std::vector<DataType>& AllDataTypes();
const std::vector<ReduceOp>& AllReduceOps();

// The names of `values` as a sentence's list, e.g. NameList(AllCollectives()): "allreduce, allgather, ...".
template <typename E>
std::string NameList(const std::vector<E>& values) {
  std::vector<std::string> names;
  for (const E& v : values) names.emplace_back(Name(v));
  return CommaList(names);
}

}  // namespace commbench
