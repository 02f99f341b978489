// The rank side: one worker process runs `ranks_per_process` ranks (threads) through every point of its plan.
#pragma once

#include <string>

#include "lib/core/status.h"

namespace commbench {

// Runs the ranks [process_index * rpp, ...) of the plan at `plan_path`. `local_process_index` is this process's
// index among the launch's processes on this host (mpirun's local rank; the process index when the driver
// forks every process here, or when it is negative); a rank's local rank (its GPU, its shm names) follows from
// it. Returns an error (and the process exits non-zero) when a rank cannot go on; the error names the rank and
// the point.
Status RunWorkerProcess(const std::string& plan_path, int process_index, int local_process_index = -1);

}  // namespace commbench
