// What each rank of a group sends and receives per operation, by backend and algorithm: the native schedules
// (native_model.h) and Gloo's algorithms (gloo_model.h) exactly; any other backend (NCCL, MPI) by the textbook
// ring figure, said so. docs/result-format.md, "Traffic"; docs/design.md §5.3 for S.
#pragma once

#include <string>
#include <vector>

#include "lib/backend/backend.h"
#include "lib/core/status.h"
#include "lib/core/types.h"
#include "lib/traffic/transfer.h"

namespace commbench {
namespace traffic {

struct Request {
  std::string backend;                           // its name, for the note
  TrafficModel model = TrafficModel::kTextbook;  // the backend's (BackendCapabilities::traffic_model)
  std::string algo;  // resolved (what ran); "auto" only for backends modelled by the textbook
  Collective op = Collective::kAllreduce;
  size_t count = 0;  // per-rank count of the smaller buffer (nccl-tests)
  int n = 1;         // group size
  size_t element_size = 4;
};

struct Model {
  std::vector<RankTraffic> ranks;    // [group rank]
  bool exact = true;                 // false: the textbook figure stands in
  std::string note;                  // why not exact
  size_t framing_per_message = 0;    // bytes a transport adds to each message (Gloo's preamble), not in ranks[]
  size_t control_message_bytes = 0;  // payload of a notification (Gloo), not in ranks[]
};

// S of docs/design.md §5.3: the allreduce buffer, or the full allgather / reduce-scatter buffer.
uint64_t NcclTestsSize(Collective op, size_t count, int n, size_t element_size);
// The textbook bytes each rank sends: 2(n-1)/n·S for allreduce, (n-1)/n·S for allgather and reduce-scatter.
uint64_t TextbookBytesPerRank(Collective op, size_t count, int n, size_t element_size);

// InvalidArgument naming an algorithm the backend does not run.
StatusOr<Model> ModelOp(const Request& request);

}  // namespace traffic
}  // namespace commbench
