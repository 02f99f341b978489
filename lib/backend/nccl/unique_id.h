// Passing NCCL's unique id (an opaque blob made by group rank 0) to the other ranks of the group through the
// rendezvous store. Kept apart from NCCL so that the exchange is tested with a real store and no GPU.
#pragma once

#include <chrono>
#include <functional>
#include <vector>

#include "lib/core/status.h"
#include "lib/rendezvous/store.h"

namespace commbench::nccl {

// The store key, under the group's prefix.
inline constexpr char kUniqueIdKey[] = "nccl/unique_id";

// Group rank 0 calls `make` and publishes its result; every other rank waits up to `timeout` for it. All ranks
// return the same bytes, or an error that says which side failed. `size` is sizeof(ncclUniqueId).
StatusOr<std::vector<char>> ExchangeUniqueId(Store* store, int group_rank,
                                             const std::function<StatusOr<std::vector<char>>()>& make, size_t size,
                                             std::chrono::milliseconds timeout);

}  // namespace commbench::nccl
