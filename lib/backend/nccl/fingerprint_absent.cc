// GpuFingerprint in a build without CUDA: nothing to query, only the reason.
#include "lib/backend/nccl/fingerprint.h"
#include "lib/cuda/cuda_absent_reason.h"

namespace commbench::nccl {

GpuInfo GpuFingerprint() {
  GpuInfo info;
  info.unavailable_reason = COMMBENCH_CUDA_ABSENT_REASON;
  return info;
}

}  // namespace commbench::nccl
