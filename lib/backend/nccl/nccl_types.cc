#include "lib/backend/nccl/nccl_types.h"

#include "lib/backend/nccl/nccl_include.h"

namespace commbench::nccl {

int ToNcclDataType(DataType t) {
  switch (t) {
    case DataType::kF32:
      return ncclFloat32;
    case DataType::kF64:
      return ncclFloat64;
    case DataType::kI32:
      return ncclInt32;
    case DataType::kF16:
      return ncclFloat16;
    case DataType::kBF16:
      return ncclBfloat16;
  }
  return -1;
}

int ToNcclRedOp(ReduceOp r) {
  switch (r) {
    case ReduceOp::kSum:
      return ncclSum;
    case ReduceOp::kMax:
      return ncclMax;
    case ReduceOp::kMin:
      return ncclMin;
    case ReduceOp::kProd:
      return ncclProd;
  }
  return -1;
}

Status FromNcclResult(int result, void* comm, const std::string& what) {
  if (result == ncclSuccess) return OkStatus();
  std::string msg = what + ": " + ncclGetErrorString(static_cast<ncclResult_t>(result));
  const char* last = ncclGetLastError(static_cast<ncclComm_t>(comm));
  if (last != nullptr && *last != '\0') msg += " (" + std::string(last) + ")";
  return Internal(msg);
}

}  // namespace commbench::nccl
