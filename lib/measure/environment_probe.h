// Probes this host for the environment fingerprint every result carries (docs/design.md §5): host, CPU, cores and
// affinity, memory, library versions and the NCCL_*, GLOO_*, CUDA_*, OMP_* variables — no other variables, they
// can hold secrets.
#pragma once

#include <nlohmann/json_fwd.hpp>

namespace commbench {

nlohmann::json EnvironmentFingerprint();

// True for the variable names the fingerprint may record.
bool IsRecordedVariable(const char* name);

}  // namespace commbench
