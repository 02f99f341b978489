// A rank's traffic record (docs/result-format.md, "Traffic"): measured by the worker from its loop's counters,
// completed at aggregation with the algorithm's model (lib/traffic).
#pragma once

#include <optional>
#include <string>

#include "lib/backend/backend.h"
#include "lib/core/axes.h"
#include "lib/measure/loop.h"
#include "lib/model/point.h"
#include "lib/result/rank_traffic.h"
#include "lib/traffic/traffic.h"

namespace commbench {

// What measured the rank's bytes: over tcp, the process's socket counters (its share where the process runs
// `ranks_per_process` rank threads, which run the same loop at once); over shm, what its thread copied from
// peers (received only), where the backend counts its copies (BackendCapabilities::counts_peer_copies).
// nullopt otherwise (NCCL, MPI over shared memory: model only).
// `ops`: the timed iterations (the loop's samples).
std::optional<result::RankTraffic> MeasuredTraffic(const RankResult& loop, int64_t ops,
                                                   const BackendCapabilities& backend, Transport transport,
                                                   int ranks_per_process);

// The model of the algorithm that ran (point.algo), by the registered backend's traffic model (the textbook figure
// for a backend not linked in); nullopt where the backend does not know the algorithm. Once per point: every rank's
// figures are in it.
std::optional<traffic::Model> TrafficModelOf(const Point& point);

// Adds this group rank's figures of `model`; leaves them at -1 for a rank the model does not hold.
void AddTrafficModel(const traffic::Model& model, int group_rank, result::RankTraffic* traffic);

}  // namespace commbench
