// What the nccl backend can run, decided without CUDA, so that both builds (and the planner's skip notes) agree.
#pragma once

#include <string>
#include <vector>

#include "lib/backend/backend.h"
#include "lib/core/status.h"

namespace commbench::nccl {

inline constexpr char kBackendName[] = "nccl";

// NCCL picks its algorithm and protocol per call; the only name we accept is "auto".
std::vector<AlgorithmInfo> NcclAlgorithms();

// A GPU backend: device buffers, the GPU axes apply; every collective, dtype, reduction and placement.
BackendCapabilities NcclCapabilities();

// OK, or InvalidArgument with the skip note: an algorithm other than "auto", a bad or impossible GPU axis
// combination (see lib/cuda/plan.h), a group size below 1. Every collective, dtype and reduction we have maps to
// NCCL's.
Status NcclSupports(const OpRequest& request, int group_size);

// "allreduce f32 sum 4096 B in-place": the call in error messages.
std::string DescribeCall(const OpRequest& request, int group_size);

}  // namespace commbench::nccl
