// The driver: runs a plan's launches one after another. For each launch it writes the worker plan, spawns the
// rank processes, watches progress (results appear per rank and point), and stops everything on a crash, a
// timeout or an interrupt, naming the ranks and the point. Nothing is left behind: no process, no temp dir.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "lib/result/rank_samples.h"
#include "lib/sweep/planner.h"

namespace commbench {

// A point that every rank finished, with each rank's samples, ordered by rank.
struct FinishedPoint {
  Point point;
  int cores_available = 0;  // CPUs its ranks could use (--cpus, else the driver's affinity)
  std::vector<result::RankSamples> ranks;
  // CLOCK_MONOTONIC when the driver began spawning the point's launch, on the launch's first point only (its
  // spawn phase, lib/result/phases.h); 0 on the others and where a launcher elsewhere started the ranks.
  int64_t launch_start_ns = 0;
  double parse_s = 0;  // the driver's CPU time reading the ranks' lines (part of the point's aggregation phase)
};

struct DriverOptions {
  std::string binary;  // the commbench executable the ranks run (`worker` subcommand)
  SweepSpec spec;
  std::function<void(const std::string&)> progress;  // one line per event; may be empty
  // Called once every rank finished a point, in plan order, so that its samples need not wait in memory for the
  // rest of the sweep. It runs on the driver's idle-priority thread (idle_queue.h), never beside `progress` on
  // the same data, and all calls of a plan are done when RunPlan returns. A non-OK status stops the run.
  std::function<Status(FinishedPoint&&)> on_point;
  // Variables the rank processes get on top of the driver's environment (gate --ab's variants): set in each
  // child (under mpirun also exported to its ranks with -x), never in the driver's own environment.
  std::vector<std::pair<std::string, std::string>> rank_env;
};

struct DriverOutcome {
  size_t points_finished = 0;
  std::string failure;  // empty when every launch completed
  bool interrupted = false;
};

DriverOutcome RunPlan(const Plan& plan, const DriverOptions& options);

// CPU affinity of process `p` of `processes` under a pin mode over `allowed` CPUs (empty: inherit).
std::vector<int> ProcessCpus(Pin pin, const std::vector<int>& allowed, int p, int processes);

}  // namespace commbench
