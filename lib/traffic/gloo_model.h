// Gloo's algorithms that the gloo backend runs (lib/backend/gloo/gloo_backend.cc), as transfers, read off the
// Gloo headers they come from (/usr/include/gloo/allreduce_ring.h, allreduce_ring_chunked.h,
// allreduce_halving_doubling.h, reduce_scatter.h, allgather_ring.h; halving-doubling in gloo_halving_doubling.h).
// Payload only; every Gloo TCP message (payload or notification) also carries a 48-byte preamble, and a
// notification 4 bytes of its own (kGlooPreambleBytes).
#pragma once

#include <string>
#include <vector>

#include "lib/core/status.h"
#include "lib/core/types.h"
#include "lib/traffic/transfer.h"

namespace commbench {
namespace traffic {

// gloo/transport/tcp/pair.h: Op::preamble is six size_t fields, written before every message.
constexpr size_t kGlooPreambleBytes = 48;
constexpr size_t kGlooNotificationBytes = 4;  // the algorithms' `int dummy_`

struct GlooProblem {
  std::string algo;  // as the backend names it; "auto" already resolved
  Collective op = Collective::kAllreduce;
  size_t count = 0;  // per-rank count of the smaller buffer
  int n = 1;
};

struct GlooModel {
  std::vector<Transfer> transfers;
  bool exact = true;  // false: the textbook figure stands in (the note says why)
  std::string note;
};

StatusOr<GlooModel> GlooTransfers(const GlooProblem& problem);

}  // namespace traffic
}  // namespace commbench
