// Our vocabulary in NCCL's terms, as plain ints (ncclDataType_t, ncclRedOp_t) so that this header needs no
// nccl.h. Every DataType and ReduceOp we have maps; the tests compare against nccl.h's own enumerators.
#pragma once

#include <string>

#include "lib/core/status.h"
#include "lib/core/types.h"

namespace commbench::nccl {

int ToNcclDataType(DataType t);
int ToNcclRedOp(ReduceOp r);

// Status for an ncclResult_t (as int): OK for ncclSuccess, else Internal("<what>: <ncclGetErrorString>").
// `comm` (an ncclComm_t, may be null) adds NCCL's last error message, which says what actually went wrong.
Status FromNcclResult(int result, void* comm, const std::string& what);

}  // namespace commbench::nccl
