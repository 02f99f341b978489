// CPU time the host spent during a point's timed window, split into the ranks' own and that of processes outside
// the run: the evidence for "load from outside the ranks" (docs/design.md §6). The result file's points[].host_load.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "lib/core/status.h"

namespace commbench::result {

// One CPU over the window: busy time from /proc/stat and the part of it that work outside the run took.
struct CpuLoad {
  int cpu = 0;
  double busy_s = 0;
  double outside_s = 0;       // named processes seen last on this CPU, plus unattributed_s
  double unattributed_s = 0;  // this CPU's part of HostLoad::unattributed_cpu_s (0 in files written before)
};

// A process outside the run that took CPU time during the window.
struct OutsideProcess {
  int pid = 0;
  std::string comm;
  double cpu_s = 0;
  std::vector<int> cpus;  // CPUs it was seen running on, ascending
  // Part of cpu_s: children it started and reaped between two samples (a shell loop's jobs, make's compilers),
  // counted from its cutime + cstime; 0 in files written before.
  double children_cpu_s = 0;
};

struct HostLoad {
  double window_s = 0;     // [first rank's start, last rank's end] of the timed loop
  double cpu_busy_s = 0;   // all CPUs, /proc/stat (user + nice + system + irq + softirq + steal)
  double ranks_cpu_s = 0;  // the ranks' own rusage over their timed loops
  double own_cpu_s = 0;    // the run's processes (driver, monitor, ranks) as /proc sees them
  // Work outside the run: the CPUs' task time (/proc/stat user + nice + system) less the run's, at least what the
  // named processes took. Before unattributed_cpu_s was recorded, the named processes' sum only.
  double outside_cpu_s = 0;
  // Part of outside_cpu_s that no process seen in two samples accounts for: short-lived processes (compilers,
  // sibling tests, cron jobs) whose parent is not sampled either. 0 below the monitor's clock-tick floor
  // (lib/measure/host_load_monitor.h, UnattributedFloorS) and in files written before it was recorded.
  double unattributed_cpu_s = 0;
  double outside_share = 0;  // outside_cpu_s / (window_s x CPUs online)
  double monitor_cpu_s = 0;  // what sampling /proc cost over the window (part of own_cpu_s)
  std::vector<CpuLoad> per_cpu;
  std::vector<OutsideProcess> top;  // largest first: the kMaxTopProcesses largest and the largest on each CPU

  // The top process's CPU time as a share of the window (1.0 = one whole CPU); 0 when none.
  double TopShare() const;
  // All outside processes' CPU time over the window, in CPUs; 0 without a window.
  double OutsideCpus() const;
  // CPU time outside the run that short-lived processes took: unattributed_cpu_s plus the named processes'
  // children_cpu_s.
  double ShortLivedCpuS() const;
};

// Outside processes holding at least this much CPU over a window (in CPUs, 0.2 = a fifth of one) make a busy
// host: on an idle 2-core host the background stays below 0.05; one busy process is 0.5-1. The diagnosis's
// outside-load rule and acceptance's disturbed checks both read it.
inline constexpr double kBusyOutsideCpus = 0.2;

inline constexpr size_t kMaxTopProcesses = 5;

nlohmann::json HostLoadToJson(const HostLoad& h);
StatusOr<HostLoad> ReadHostLoad(const nlohmann::json& j, const std::string& path = "host_load");

}  // namespace commbench::result
