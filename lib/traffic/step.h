// One data-parallel training step's traffic: the gradients (params × dtype) cut into buckets of `bucket_bytes`
// (PyTorch DDP's bucket_cap_mb; the last bucket holds the rest), each bucket one allreduce over the world with the
// backend's algorithm for its size. Per rank, the sums of ModelOp over the buckets.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "lib/traffic/traffic.h"

namespace commbench {
namespace traffic {

struct StepRequest {
  std::string backend;
  TrafficModel model = TrafficModel::kTextbook;  // the backend's (BackendCapabilities::traffic_model)
  uint64_t params = 0;
  size_t element_size = 2;
  uint64_t bucket_bytes = 25ull << 20;
  int world = 1;
  // The algorithm that runs an allreduce of `count` elements (what the backend's "auto" picks, or a fixed name).
  std::function<std::string(size_t count)> algo_for;
};

struct BucketGroup {
  size_t count = 0;  // elements per bucket
  int buckets = 0;   // how many buckets of this size
  std::string algo;
  Model model;  // one allreduce of one bucket
};

struct StepTraffic {
  uint64_t gradient_bytes = 0;
  std::vector<BucketGroup> groups;      // full buckets, then the remainder
  std::vector<RankTraffic> ranks;       // per rank, the whole step
  uint64_t messages_framing_bytes = 0;  // the largest rank's framing (Gloo preambles and notifications)
  bool exact = true;
};

// InvalidArgument for a bucket smaller than one element, a world < 1 or an unknown algorithm.
StatusOr<StepTraffic> ModelStep(const StepRequest& request);

}  // namespace traffic
}  // namespace commbench
