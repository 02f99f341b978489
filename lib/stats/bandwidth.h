// Bandwidth as nccl-tests defines it (docs/design.md §5), in decimal GB/s. `bytes` is the nccl-tests "size": the
// allreduce buffer, or the full gathered / scattered buffer (per-rank count x typesize x n).
#pragma once

#include <cstdint>

#include "lib/core/types.h"

namespace commbench {

// busbw / algbw: 2(n-1)/n for allreduce, (n-1)/n for allgather and reduce-scatter; 1 for n = 1 (no traffic,
// but nccl-tests prints algbw then, and so do we).
double BusBwFactor(Collective op, int n);

struct Bandwidth {
  double algbw_gbps = 0;
  double busbw_gbps = 0;
};

Bandwidth ComputeBandwidth(Collective op, uint64_t bytes, int n, double time_us);

}  // namespace commbench
