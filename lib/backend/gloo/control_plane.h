// The world-wide control plane of the worker ranks: barriers and tiny max-reductions that keep every rank's
// decisions identical (iteration counts, "stop now"). Always Gloo over TCP, whatever backend is measured.
#pragma once

#include <array>
#include <memory>
#include <vector>

#include "lib/backend/gloo/gloo_context.h"
#include "lib/backend/world_control.h"

namespace gloo {
class BarrierAllToAll;
template <typename T>
class AllreduceRing;
}  // namespace gloo

namespace commbench {

class ControlPlane {
 public:
  // Up to this many values per MaxAll.
  static constexpr size_t kMaxValues = 4;

  static StatusOr<std::unique_ptr<ControlPlane>> Connect(const GlooConnectOptions& options);
  ~ControlPlane();

  Status Barrier();
  // Element-wise max over all ranks, in place; at most kMaxValues values.
  Status MaxAll(std::vector<double>* values);

 private:
  explicit ControlPlane(std::shared_ptr<gloo::Context> context);

  // Both algorithms are built once, at Connect, and run again and again, so that their receive buffers are always
  // posted. A message that arrives before its receive buffer exists stays in the socket, and Gloo's event loop,
  // level-triggered, then polls without pause until the rank gets there: in a turn-taking sweep the ranks whose
  // turn it was shared their two cores with two such loop threads (70,000 epoll_wait calls a second each), and
  // in any sweep a rank behind its peers at a barrier was slowed down further.
  std::shared_ptr<gloo::Context> context_;
  std::unique_ptr<gloo::BarrierAllToAll> barrier_;
  std::array<double, kMaxValues> max_values_{};
  std::unique_ptr<gloo::AllreduceRing<double>> max_all_;
};

}  // namespace commbench
