// The per-point loop of one rank: warm-up, timed iterations (adaptive count), correctness check of the first
// and last timed iterations, resource counters.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "lib/backend/backend.h"
#include "lib/core/axes.h"

namespace commbench {

// World-wide agreement between ranks (implemented by the Gloo control plane in the worker; by threads in tests).
class Agreement {
 public:
  virtual ~Agreement() = default;
  virtual Status Barrier() = 0;
  virtual Status MaxAll(std::vector<double>* values) = 0;
};

struct LoopOptions {
  int64_t warmup = 5;
  int64_t iters = 0;  // 0: adaptive
  double time_budget_s = 0.2;
  double target_ci = 0.05;
  int64_t min_iters = 20;
  int64_t max_iters = 100000;
  Sync sync = Sync::kNone;  // the loop runs the barriers; the GPU syncs are the backend's
  // kSequential: groups take turns (one group's timed loop at a time) instead of running together, the A/B that
  // shows whether concurrent groups share one bandwidth. Iterations are then fixed at the planned count.
  Concurrency concurrency = Concurrency::kConcurrent;
  double injected_delay_us = 0;  // test-only fault injection for this rank
};

struct RankResult {
  bool correct = true;
  std::string error;  // the first check failure, if any
  std::string algo;   // what actually ran
  int64_t warmup = 0;
  std::vector<double> samples_us;         // host clock, one per timed iteration
  std::vector<double> device_samples_us;  // CUDA events (GPU backends), else empty
  int64_t start_ns = 0, end_ns = 0;       // CLOCK_MONOTONIC around the timed loop (comparable across processes)
  // getrusage(RUSAGE_SELF) over the same window: the whole process, all its rank threads and helper threads.
  double cpu_user_s = 0, cpu_sys_s = 0;
  long vol_ctx = 0, invol_ctx = 0;
};

// Runs one point on this rank. `group` serves group barriers; `world` keeps all ranks' decisions identical.
// Returns an error only when the run cannot go on (a peer died, a backend error); wrong values come back as
// correct = false with the error text.
StatusOr<RankResult> RunPointLoop(const OpRequest& request, const RankPlace& place, Work* work, Communicator* group,
                                  Agreement* world, const LoopOptions& options);

}  // namespace commbench
