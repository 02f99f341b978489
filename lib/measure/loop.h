// The per-point loop of one rank: warm-up, timed iterations (adaptive count), correctness check of the first and
// last timed iterations and of a random sample of the others, resource counters, progress for the driver.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "lib/backend/backend.h"
#include "lib/core/axes.h"
#include "lib/core/loop_defaults.h"
#include "lib/measure/progress.h"
#include "lib/measure/socket_traffic.h"
#include "lib/measure/timing_plan.h"

namespace commbench {

// World-wide agreement between ranks (implemented by the Gloo control plane in the worker; by threads in tests).
class Agreement {
 public:
  virtual ~Agreement() = default;
  virtual Status Barrier() = 0;
  // The world barrier of `--sync world-barrier`, timed as the user's (WorldControl::IterationBarrier).
  virtual Status IterationBarrier() { return Barrier(); }
  virtual Status MaxAll(std::vector<double>* values) = 0;
};

struct LoopOptions {
  int64_t warmup = loop_defaults::kWarmup;
  int64_t iters = 0;  // 0: adaptive
  double time_budget_s = loop_defaults::kTimeBudgetS;
  double target_ci = loop_defaults::kTargetCi;
  int64_t min_iters = loop_defaults::kMinIters;
  int64_t max_iters = loop_defaults::kMaxIters;
  Sync sync = Sync::kNone;  // the loop runs the barriers; the GPU syncs are the backend's
  // kSequential: groups take turns (one group's timed loop at a time) instead of running together, the A/B that
  // shows whether concurrent groups share one bandwidth. Iterations are then fixed at the planned count.
  Concurrency concurrency = Concurrency::kConcurrent;
  double injected_delay_us = 0;  // test-only fault injection for this rank
  // TEST ONLY (--test-only-late-rank): this rank sleeps this long before each timed iteration, outside the clock,
  // as a rank busy in the application would: it arrives late at every op and its peers wait inside theirs.
  double arrival_delay_us = 0;
  // TEST ONLY (--test-only-uniform-slowdown): after each clocked op, every rank spins, inside the clock, for this
  // fraction of the op's median time measured before the timed loop (the largest of any rank): every op slower by
  // about that fraction. 0: off.
  double uniform_slowdown = 0;
  // The backend's device: with the sync axis it decides what the clock covers (timing_plan.h).
  DeviceKind device = DeviceKind::kCpu;
  // Besides the first and last, each timed iteration is checked with this probability, on its own input, outside
  // the clock (followed by a group barrier only where Work::OutputHeldUntilNextRun says a peer could overwrite
  // the output first). The draws come from check_seed, which must be the same on every rank of a group: they
  // decide together which iterations to check. Checks perturb the groups running beside them; on a 2-core host
  // with a barrier after each, 2 pairs of 400 B Gloo ops measured 1.25-1.44x a bare loop at 1/64, 1.06-1.26x at
  // 1/256, 1.04-1.18x with none (bench/archive.md, "Headline vs the user's loop").
  double check_rate = loop_defaults::kCheckRate;
  uint64_t check_seed = 0;
  int64_t hang_at_iter = 0;  // TEST ONLY: > 0 stops this rank for good before that timed iteration (1-based)
  // Where this rank publishes its progress (not part of the plan file; none in tests that need none).
  ProgressPage* progress = nullptr;
  int point_index = 0;  // for the progress page
};

struct RankResult {
  bool correct = true;
  std::string error;          // the first check failure, naming the timed iteration
  int64_t checked_iters = 0;  // timed iterations whose output was compared with the pattern
  std::string algo;           // what actually ran
  int64_t warmup = 0;
  // Host clock, one per timed iteration; a batch (GPU, --sync none/event) gives each of its iterations the batch's
  // time divided over it.
  std::vector<double> samples_us;
  std::vector<double> device_samples_us;  // CUDA events (GPU backends), else empty
  int64_t start_ns = 0, end_ns = 0;       // CLOCK_MONOTONIC around the timed loop (comparable across processes)
  // When this rank entered each timed iteration (its arrival at the collective), in ns since start_ns, one per
  // samples_us entry; a batch's iterations spaced by its per-iteration time. With the durations they give the
  // collective's own time and the arrival skew across a group's ranks (lib/measure/aggregate.h).
  std::vector<int64_t> entry_ns;
  // getrusage(RUSAGE_SELF) over the same window: the whole process, all its rank threads and helper threads.
  double cpu_user_s = 0, cpu_sys_s = 0;
  long vol_ctx = 0, invol_ctx = 0;
  // This rank's thread, runnable without a CPU over the timed loop (run_queue.h); -1 where the kernel does not say.
  double runqueue_wait_s = -1;
  // How often this rank's thread moved between CPUs over the timed loop (run_queue.h); -1 where the kernel does
  // not say.
  int64_t migrations = -1;
  // The CPU limit of this process's cgroup (lib/core/cpu_quota.h) in CPUs, 0 where none; and the share of its
  // enforcement periods over the timed loop in which the cgroup ran out of quota, -1 where there is none to read.
  double cpu_quota = 0;
  double throttled_share = -1;
  // Traffic over the same window (docs/result-format.md, "Traffic"): the process's TCP sockets, all its rank
  // threads together (socket_traffic.h), and what this rank's thread copied out of its peers' shared memory
  // (lib/backend/peer_copies.h).
  SocketBytes tcp;
  uint64_t peer_bytes_copied = 0;
  // Where the loop's time went besides the clocked operations (lib/result/phases.h), in seconds: read from the
  // clock only around the rare events (checks, batch decisions, barriers), never per iteration. between_ops_s is
  // what is left of the timed window: input copies and bookkeeping between the clocked operations.
  double warmup_s = 0, barriers_s = 0, checks_s = 0, stats_s = 0, between_ops_s = 0;
};

// Runs one point on this rank. `group` serves group barriers; `world` keeps all ranks' decisions identical.
// Returns an error only when the run cannot go on (a peer died, a backend error); wrong values come back as
// correct = false with the error text.
StatusOr<RankResult> RunPointLoop(const OpRequest& request, const RankPlace& place, Work* work, Communicator* group,
                                  Agreement* world, const LoopOptions& options);

}  // namespace commbench
