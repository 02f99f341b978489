// The CPU bandwidth limit of this process's cgroup and its ancestors: a container's, a Slurm job's or a Kubernetes
// pod's CPU limit, as CFS quota / period in CPUs. The affinity mask does not show it: a container limited to half a
// CPU still sees every core, and its ranks then wait for the quota, not for a core.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

namespace commbench {

struct CpuQuota {
  double cpus = 0;        // the tightest limit over the cgroup and its ancestors, in CPUs; 0: none
  double period_s = 0;    // that limit's enforcement period (cpu.cfs_period_us, cpu.max's second field)
  std::string stat_path;  // cpu.stat of the cgroup that sets it (its throttling counters); "" when none
};

// This process's limit, from /proc/self/mountinfo, /proc/self/cgroup and the cgroup files they lead to (cgroup v1's
// cpu.cfs_quota_us / cpu.cfs_period_us, v2's cpu.max).
CpuQuota ReadCpuQuota();

// The same from those two files' texts; every mount point is read under `root` ("" for the real filesystem).
CpuQuota CpuQuotaFrom(const std::string& mountinfo, const std::string& proc_cgroup, const std::string& root);

// A cgroup's throttling counters (cpu.stat): enforcement periods, and periods in which it ran out of quota.
struct CpuThrottling {
  int64_t periods = 0, throttled_periods = 0;
};

// cpu.stat's text (v1 and v2 alike) -> the counters; nullopt without nr_periods.
std::optional<CpuThrottling> ParseCpuStat(const std::string& text);

// ParseCpuStat of the file at `stat_path`; nullopt where it cannot be read.
std::optional<CpuThrottling> ReadCpuThrottling(const std::string& stat_path);

// The tighter of two limits in CPUs, where 0 means none.
inline double TighterLimit(double a, double b) { return a <= 0 ? b : b <= 0 ? a : std::min(a, b); }

// A quota (0: none) binds when it is below the `cores` the ranks may run on (0: not known).
inline bool QuotaBinds(double quota, double cores) { return quota > 0 && (cores <= 0 || quota < cores); }

// Under a binding quota of a CPU or less, one core and all cores give the ranks the same share: a --cpus A/B then
// varies nothing. Above a CPU (or without a quota) one core gives them less than all.
inline bool CpusCanVaryShare(double binding_quota) { return binding_quota <= 0 || binding_quota > 1; }

// "0.5 CPU", "2 CPUs": a limit as the user would set it.
std::string FormatCpus(double cpus);

}  // namespace commbench
