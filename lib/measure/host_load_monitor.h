// Watches the host while ranks run: per-CPU busy time from /proc/stat and the CPU time of every process from
// /proc/[pid]/stat, sampled on a background thread at a modest rate. For a point's timed window it tells how much
// CPU the host spent, how much of it was the run's own (this process, the monitor, the ranks and anything they
// spawned) and which processes outside the run took the rest (docs/design.md §6, load from outside the ranks).
// The outside total is the CPUs' own task time less the run's, so work too brief to be seen in two samples
// (compilers, sibling tests, cron jobs) counts; what the samples can name is attributed, the rest is reported as
// unattributed. A process's reaped children (cutime + cstime) count as its own: a shell loop that runs short
// jobs is named with them, and a rank that exits between samples stays the run's.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "lib/result/host_load.h"
#include "lib/result/rank_samples.h"

namespace commbench {

// Parsing /proc, pure so that it is testable on text.
struct CpuTicks {
  int cpu = 0;
  uint64_t busy = 0;  // user + nice + system + irq + softirq + steal, in clock ticks
  uint64_t task = 0;  // user + nice + system: the part charged to processes (guest time is inside user)
};
// The "cpuN" lines of /proc/stat (not the "cpu" total).
std::vector<CpuTicks> ParseProcStat(const std::string& text);

struct ProcessTicks {
  int pid = 0, ppid = 0;
  std::string comm;
  uint64_t ticks = 0;        // utime + stime, all threads
  uint64_t child_ticks = 0;  // cutime + cstime: children it waited for, with theirs
  uint64_t starttime = 0;    // tells a reused pid from the process that had it
  int processor = -1;        // the CPU it last ran on
};
// One /proc/[pid]/stat line; nullopt when it does not parse.
std::optional<ProcessTicks> ParseProcessStat(const std::string& text);

// What one process outside the run used between two samples.
struct ProcessUse {
  int pid = 0;
  std::string comm;
  double cpu_s = 0;
  int cpu = -1;
  double children_s = 0;  // part of cpu_s: children it reaped that no sample saw for all of their time
};

// What the host used between two consecutive samples.
struct LoadInterval {
  int64_t t0_ns = 0, t1_ns = 0;    // CLOCK_MONOTONIC, as the ranks' start_ns / end_ns
  std::vector<double> cpu_busy_s;  // parallel to the monitor's CPU ids
  double own_s = 0;                // the run's processes
  double monitor_s = 0;            // the sampling itself (part of own_s)
  std::vector<ProcessUse> outside;
  std::vector<double> cpu_task_s = {};  // parallel to cpu_busy_s: the part charged to processes (CpuTicks::task)
  std::vector<double> own_by_cpu = {};  // parallel to cpu_busy_s: own_s by the CPU each process was last seen on
};

// Below this much unattributed CPU time over a window the remainder is taken as clock-tick noise and reported as 0:
// /proc/stat's per-CPU times are sampled at each tick (10 ms) while the processes' are exact, so the difference
// errs by a few ticks per CPU at the window's ends and about one more per CPU per second of window.
double UnattributedFloorS(size_t cpus, double window_s);

// The load over [start_ns, end_ns]: each interval counts in proportion to its overlap with the window (its load
// is taken as even over the interval). `cpu_ids` names the entries of cpu_busy_s. The outside total is the CPUs'
// task time less the run's (the larger of what /proc saw of its processes and the ranks' rusage plus the
// monitor), at least what the named processes took; the excess over them is unattributed_cpu_s, spread over
// the CPUs by the task time nothing named explains there.
result::HostLoad LoadOver(const std::vector<LoadInterval>& intervals, const std::vector<int>& cpu_ids, int64_t start_ns,
                          int64_t end_ns, double ranks_cpu_s);

class HostLoadMonitor {
 public:
  struct Options {
    std::chrono::milliseconds period{100};  // 10 Hz: about 2 % of one CPU with 100 processes (README)
    pid_t root = 0;                         // the run's root process; 0 = this process
    std::chrono::seconds keep{120};         // intervals older than this before the last window are dropped
  };
  HostLoadMonitor();  // default options
  explicit HostLoadMonitor(const Options& options);
  ~HostLoadMonitor();
  HostLoadMonitor(const HostLoadMonitor&) = delete;
  HostLoadMonitor& operator=(const HostLoadMonitor&) = delete;

  // The load during the ranks' timed window ([min start_ns, max end_ns]) against their own CPU time; samples
  // first when the last sample is older than the window's end. nullopt when /proc could not be read.
  std::optional<result::HostLoad> LoadDuring(const std::vector<result::RankSamples>& ranks);
  std::optional<result::HostLoad> LoadDuring(int64_t start_ns, int64_t end_ns, double ranks_cpu_s);

 private:
  struct Seen {
    uint64_t ticks = 0, child_ticks = 0, starttime = 0;
    int ppid = 0;
  };
  void Loop();
  void SampleLocked();  // takes a sample and closes an interval; mutex_ held

  Options options_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  bool ok_ = true;  // /proc/stat was readable
  std::vector<int> cpu_ids_;
  std::vector<uint64_t> last_cpu_busy_, last_cpu_task_;
  std::map<int, Seen> last_processes_;
  int64_t last_ns_ = 0;
  double pending_monitor_s_ = 0;  // sampling cost not yet given to an interval
  std::vector<LoadInterval> intervals_;
  std::thread thread_;
};

}  // namespace commbench
