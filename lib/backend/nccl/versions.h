// Version numbers as the CUDA runtime, NCCL and the NVIDIA kernel module report them, turned into the strings
// the result file carries. Pure functions: the encodings are where mistakes hide.
#pragma once

#include <string>
#include <string_view>

namespace commbench::nccl {

// ncclGetVersion's code: major*10000 + minor*100 + patch since 2.9, major*1000 + minor*100 + patch before.
// 22809 -> "2.28.9", 2804 -> "2.8.4"; "" for codes <= 0.
std::string NcclVersionString(int code);

// cudaRuntimeGetVersion / cudaDriverGetVersion: major*1000 + minor*10. 13000 -> "13.0", 12080 -> "12.8";
// "" for codes <= 0 (no driver).
std::string CudaVersionString(int code);

// The kernel module version from /proc/driver/nvidia/version ("NVRM version: NVIDIA UNIX x86_64 Kernel Module
// 550.54.15 ..." or the open module's "... Open Kernel Module for x86_64  580.65.06 ..."): "550.54.15", or ""
// when the text has none.
std::string ParseNvidiaDriverVersion(std::string_view proc_text);

}  // namespace commbench::nccl
