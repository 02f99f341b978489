#include "lib/traffic/traffic.h"

#include "lib/traffic/gloo_model.h"
#include "lib/traffic/native_model.h"

namespace commbench {
namespace traffic {

uint64_t NcclTestsSize(Collective op, size_t count, int n, size_t element_size) {
  uint64_t bytes = static_cast<uint64_t>(count) * element_size;
  return op == Collective::kAllreduce ? bytes : bytes * static_cast<uint64_t>(n);
}

uint64_t TextbookBytesPerRank(Collective op, size_t count, int n, size_t element_size) {
  if (n <= 1) return 0;
  const uint64_t s = NcclTestsSize(op, count, n, element_size);
  const uint64_t factor = op == Collective::kAllreduce ? 2 : 1;
  return factor * static_cast<uint64_t>(n - 1) * s / static_cast<uint64_t>(n);
}

StatusOr<Model> ModelOp(const Request& r) {
  if (r.n < 1) return InvalidArgument("traffic: group size " + std::to_string(r.n) + " (accepted: >= 1)");
  Model m;
  if (r.model == TrafficModel::kNativeSchedules) {  // one set of schedules, either transport
    ASSIGN_OR_RETURN(auto transfers, NativeTransfers(NativeProblem{r.algo, r.op, r.count, r.n}));
    m.ranks = PerRank(transfers, r.n, r.element_size);
    return m;
  }
  if (r.model == TrafficModel::kGlooAlgorithms) {
    ASSIGN_OR_RETURN(GlooModel g, GlooTransfers(GlooProblem{r.algo, r.op, r.count, r.n}));
    m.ranks = PerRank(g.transfers, r.n, r.element_size);
    m.exact = g.exact;
    m.note = g.note;
    m.framing_per_message = kGlooPreambleBytes;
    m.control_message_bytes = kGlooNotificationBytes;
    return m;
  }
  const uint64_t bytes = TextbookBytesPerRank(r.op, r.count, r.n, r.element_size);
  m.ranks.assign(static_cast<size_t>(r.n), RankTraffic{bytes, bytes, 0, 0});
  m.exact = false;
  m.note = r.backend + " " + r.algo + ": textbook ring figure (the backend's own pattern is not modelled)";
  return m;
}

}  // namespace traffic
}  // namespace commbench
