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
namespace transport {
class UnboundBuffer;
}  // namespace transport
}  // namespace gloo

namespace commbench {

class ControlPlane {
 public:
  // Up to this many values per MaxAll.
  static constexpr size_t kMaxValues = 4;

  static StatusOr<std::unique_ptr<ControlPlane>> Connect(const GlooConnectOptions& options);
  ~ControlPlane();

  Status Barrier();
  // Gloo's all-to-all barrier, built once at Connect (its receives always posted): the `--sync world-barrier`
  // workload, which must cost what a framework's barrier costs, not the harness's two hops.
  Status IterationBarrier();
  // Element-wise max over all ranks, in place; at most kMaxValues values.
  Status MaxAll(std::vector<double>* values);

 private:
  using Block = std::array<double, kMaxValues>;
  explicit ControlPlane(std::shared_ptr<gloo::Context> context);

  // One round through rank 0: every rank sends its block up, rank 0 reduces and sends the max down. Two hops
  // whatever the world's size: a ring takes 2 (n - 1) hops, each a wake-up of the next rank's process, and with 16
  // ranks on 2 cores a ring's round took 17-29 ms (7 a point: a third of a sweep point's wall at 8 groups).
  Status Exchange(Block* block);
  void PostReceives();

  // Every receive is posted before its message can be sent (rank 0's for the next round before it answers this
  // one, the others' for the answer before they send), so no message ever waits in a socket. One that did would
  // keep Gloo's level-triggered event loop polling without pause until the rank got there: a late rank's peers
  // would share their cores with its spinning loop thread.
  std::shared_ptr<gloo::Context> context_;
  Block up_{};                   // this rank's block, sent to rank 0 (rank 0: the reduced block, sent to all)
  Block down_{};                 // the reduced block from rank 0
  std::vector<Block> gathered_;  // rank 0: one block per other rank
  std::unique_ptr<gloo::transport::UnboundBuffer> up_buffer_, down_buffer_, gathered_buffer_;
  std::unique_ptr<gloo::BarrierAllToAll> iteration_barrier_;
};

}  // namespace commbench
