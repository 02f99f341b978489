#include "lib/traffic/step.h"

#include <algorithm>

namespace commbench {
namespace traffic {

StatusOr<StepTraffic> ModelStep(const StepRequest& r) {
  if (r.world < 1) return InvalidArgument("--world " + std::to_string(r.world) + " (accepted: >= 1)");
  if (r.element_size == 0 || r.bucket_bytes < r.element_size) {
    return InvalidArgument("--bucket " + std::to_string(r.bucket_bytes) + " (accepted: at least one element, " +
                           std::to_string(r.element_size) + " B)");
  }
  StepTraffic step;
  step.gradient_bytes = r.params * r.element_size;
  const uint64_t per_bucket = r.bucket_bytes / r.element_size;
  const uint64_t full = r.params / per_bucket, rest = r.params % per_bucket;
  std::vector<std::pair<uint64_t, uint64_t>> sizes;  // (count, buckets)
  if (full > 0) sizes.push_back({per_bucket, full});
  if (rest > 0) sizes.push_back({rest, 1});
  step.ranks.assign(static_cast<size_t>(r.world), RankTraffic{});
  std::vector<uint64_t> framing(static_cast<size_t>(r.world), 0);
  for (const auto& [count, buckets] : sizes) {
    BucketGroup g;
    g.count = static_cast<size_t>(count);
    g.buckets = static_cast<int>(buckets);
    g.algo = r.algo_for ? r.algo_for(g.count) : "auto";
    ASSIGN_OR_RETURN(g.model, ModelOp(Request{r.backend, r.model, g.algo, Collective::kAllreduce, g.count, r.world,
                                              r.element_size}));
    step.exact = step.exact && g.model.exact;
    for (size_t k = 0; k < step.ranks.size(); ++k) {
      const RankTraffic& one = g.model.ranks[k];
      RankTraffic& sum = step.ranks[k];
      sum.sent_bytes += one.sent_bytes * buckets;
      sum.recv_bytes += one.recv_bytes * buckets;
      sum.sent_messages += one.sent_messages * buckets;
      sum.control_messages += one.control_messages * buckets;
      framing[k] += buckets * ((one.sent_messages + one.control_messages) * g.model.framing_per_message +
                               one.control_messages * g.model.control_message_bytes);
    }
    step.groups.push_back(std::move(g));
  }
  step.messages_framing_bytes = *std::max_element(framing.begin(), framing.end());
  return step;
}

}  // namespace traffic
}  // namespace commbench
