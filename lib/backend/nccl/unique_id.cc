#include "lib/backend/nccl/unique_id.h"

#include <string>

namespace commbench::nccl {

StatusOr<std::vector<char>> ExchangeUniqueId(Store* store, int group_rank,
                                             const std::function<StatusOr<std::vector<char>>()>& make, size_t size,
                                             std::chrono::milliseconds timeout) {
  if (store == nullptr) return InvalidArgument("nccl: no rendezvous store to pass the unique id through");
  std::vector<char> id;
  if (group_rank == 0) {
    ASSIGN_OR_RETURN(id, make());
    if (id.size() != size) {
      return Internal("nccl: made a unique id of " + std::to_string(id.size()) + " bytes, expected " +
                      std::to_string(size));
    }
    RETURN_IF_ERROR(store->Set(kUniqueIdKey, id));
    return id;
  }
  auto got = store->Get(kUniqueIdKey, timeout);
  if (!got.ok()) {
    return Status(got.status().code(), "nccl: group rank " + std::to_string(group_rank) +
                                           " did not get the unique id from group rank 0 through " + store->Describe() +
                                           ": " + got.status().message());
  }
  id = std::move(got).value();
  if (id.size() != size) {
    return Internal("nccl: the unique id in " + store->Describe() + " has " + std::to_string(id.size()) +
                    " bytes, expected " + std::to_string(size) + " (a different NCCL version on group rank 0?)");
  }
  return id;
}

}  // namespace commbench::nccl
