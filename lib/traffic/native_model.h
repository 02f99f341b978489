// The native backend's algorithms (lib/backend/native/schedule.h) as transfers: a pull of `count` elements from
// a peer's buffer is one transfer from that peer (on tcp a send; on shm a copy the puller makes out of the peer's
// segment). native_model_test.cc walks the real schedules and checks every rank's sums against these.
#pragma once

#include <string>
#include <vector>

#include "lib/core/status.h"
#include "lib/core/types.h"
#include "lib/traffic/transfer.h"

namespace commbench {
namespace traffic {

struct NativeProblem {
  std::string algo;  // direct, twoshot, ring, hd (resolved: not "auto")
  Collective op = Collective::kAllreduce;
  size_t count = 0;  // per-rank count of the smaller buffer (nccl-tests)
  int n = 1;
};

// InvalidArgument for an algorithm the native backend does not run for that collective.
StatusOr<std::vector<Transfer>> NativeTransfers(const NativeProblem& problem);

}  // namespace traffic
}  // namespace commbench
