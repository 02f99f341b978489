// GpuFingerprint where CUDA and NCCL were found at build time.
#include <fstream>
#include <sstream>

#include "lib/backend/nccl/fingerprint.h"
#include "lib/backend/nccl/nccl_include.h"
#include "lib/backend/nccl/versions.h"
#include "lib/cuda/runtime.h"

namespace commbench::nccl {

GpuInfo GpuFingerprint() {
  GpuInfo info;
  info.cuda_runtime = CudaVersionString(cuda::RuntimeVersion());
  info.driver_cuda = CudaVersionString(cuda::DriverVersion());
  int nccl_code = 0;
  if (ncclGetVersion(&nccl_code) == ncclSuccess) info.nccl = NcclVersionString(nccl_code);
  info.nccl_built = NcclVersionString(NCCL_VERSION_CODE);
  std::ifstream proc("/proc/driver/nvidia/version");
  if (proc) {
    std::stringstream text;
    text << proc.rdbuf();
    info.driver = ParseNvidiaDriverVersion(text.str());
  }

  Status usable = cuda::DeviceUsable();
  if (!usable.ok()) {
    info.unavailable_reason = usable.message();
    return info;
  }
  info.device_count = cuda::DeviceCount();
  cudaDeviceProp prop{};
  cudaError_t err = cudaGetDeviceProperties(&prop, 0);
  if (err != cudaSuccess) {
    info.unavailable_reason = cuda::FromCudaError(err, "cudaGetDeviceProperties(0)").message();
    return info;
  }
  info.name = prop.name;
  info.compute_capability = std::to_string(prop.major) + "." + std::to_string(prop.minor);
  info.memory_bytes = prop.totalGlobalMem;
  char bus[32] = {0};
  if (cudaDeviceGetPCIBusId(bus, sizeof(bus), 0) == cudaSuccess) info.pci_bus_id = bus;
  return info;
}

}  // namespace commbench::nccl
