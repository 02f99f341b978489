// The GPU part of the environment fingerprint (result file: environment.gpu / gpu_unavailable_reason).
// Header-light: no CUDA types, so that the env command and the result writer include it in every build.
#pragma once

#include <cstdint>
#include <string>

namespace commbench::nccl {

struct GpuInfo {
  // Empty when a device is usable; otherwise why not, e.g. "no usable CUDA device: cudaGetDeviceCount: ..." or
  // "built without CUDA: no CUDA toolkit at /usr/local/cuda (set CUDA_HOME)". The version fields below are
  // still filled where they can be known without a device.
  std::string unavailable_reason;
  std::string name;                // device 0: "NVIDIA H100 80GB HBM3"
  std::string driver;              // kernel module "580.65.06", else "" (not readable)
  std::string driver_cuda;         // the CUDA version the driver supports: "13.0"; "" without a driver
  std::string cuda_runtime;        // the loaded runtime: "13.0"
  std::string nccl;                // the loaded libnccl: "2.28.9"
  std::string nccl_built;          // the nccl.h this binary was compiled with
  std::string compute_capability;  // "9.0"
  std::string pci_bus_id;          // "0000:18:00.0"
  uint64_t memory_bytes = 0;
  int device_count = 0;

  bool available() const { return unavailable_reason.empty(); }
};

// Queries device 0. Initialises the CUDA driver: call it in a process that will not fork() without exec().
GpuInfo GpuFingerprint();

}  // namespace commbench::nccl
