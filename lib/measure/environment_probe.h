// Probes this host for the environment fingerprint every result carries (docs/design.md §5): host, CPU, cores and
// affinity, memory, how the CPUs idle and clock, library versions and the NCCL_*, GLOO_*, CUDA_*, OMP_* variables — no
// other variables, they can hold secrets.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

namespace commbench {

nlohmann::json EnvironmentFingerprint();

// How the CPUs idle and clock, read from `sys` (/sys): the cpuidle driver and governor, the cpufreq governor (""
// where the host has none, as in most VMs), a guest haltpoll driver's polling time, and the idle states switched
// off. Each shapes how fast a rank that waited for its peer runs again (bench/archive.md, "The gate's noise at the
// source").
nlohmann::json CpuPowerFacts(const std::string& sys);

// True for the variable names the fingerprint may record.
bool IsRecordedVariable(const char* name);

}  // namespace commbench
