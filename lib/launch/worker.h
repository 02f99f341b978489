// The rank side: one worker process runs `ranks_per_process` ranks (threads) through every point of its plan.
#pragma once

#include <string>

#include "lib/core/status.h"
#include "lib/launch/worker_plan.h"
#include "lib/rendezvous/store.h"
#include "lib/result/rank_samples.h"

namespace commbench {

// Where a rank's samples go, one point at a time: a file the driver tails, or the rendezvous store (SPMD).
class RankOutput {
 public:
  virtual ~RankOutput() = default;
  virtual Status Put(const result::RankSamples& samples) = 0;
};

// This machine's name (gethostname); "" when it has none.
std::string HostName();

// Runs rank `rank` through every point of `plan`, meeting its peers through `store` (keys relative to the
// launch), then waits until every rank of the launch is done. The error names the rank and the point.
Status RunRank(const WorkerPlan& plan, int rank, int local_rank, Store* store, RankOutput* output);

// Runs the ranks [process_index * rpp, ...) of the plan at `plan_path`. `local_process_index` is this process's
// index among the launch's processes on this host (mpirun's local rank; the process index when the driver
// forks every process here, or when it is negative); a rank's local rank (its GPU, its shm names) follows from
// it. Returns an error (and the process exits non-zero) when a rank cannot go on; the error names the rank and
// the point.
Status RunWorkerProcess(const std::string& plan_path, int process_index, int local_process_index = -1);

}  // namespace commbench
