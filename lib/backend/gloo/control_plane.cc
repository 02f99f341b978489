#include "lib/backend/gloo/control_plane.h"

#include <gloo/barrier_all_to_all.h>
#include <gloo/context.h>
#include <gloo/transport/unbound_buffer.h>
#include <gloo/types.h>

#include <algorithm>
#include <limits>
#include <string>

namespace commbench {

namespace {

// Slots of the control plane's two messages; the prefix keeps them apart from Gloo's own collectives' slots.
constexpr uint8_t kControlSlotPrefix = 0x43;
const uint64_t kUpSlot = gloo::Slot::build(kControlSlotPrefix, 0);
const uint64_t kDownSlot = gloo::Slot::build(kControlSlotPrefix, 1);
constexpr size_t kBlockBytes = sizeof(double) * ControlPlane::kMaxValues;

}  // namespace

ControlPlane::ControlPlane(std::shared_ptr<gloo::Context> context) : context_(std::move(context)) {}
ControlPlane::~ControlPlane() = default;

StatusOr<std::unique_ptr<ControlPlane>> ControlPlane::Connect(const GlooConnectOptions& options) {
  ASSIGN_OR_RETURN(auto context, ConnectGlooContext(options));
  std::unique_ptr<ControlPlane> plane(new ControlPlane(std::move(context)));
  if (plane->context_->size > 1) {
    try {
      ControlPlane& p = *plane;
      p.up_buffer_ = p.context_->createUnboundBuffer(p.up_.data(), kBlockBytes);
      if (p.context_->rank == 0) {
        p.gathered_.resize(static_cast<size_t>(p.context_->size - 1));
        p.gathered_buffer_ = p.context_->createUnboundBuffer(p.gathered_.data(), kBlockBytes * p.gathered_.size());
      } else {
        p.down_buffer_ = p.context_->createUnboundBuffer(p.down_.data(), kBlockBytes);
      }
      p.PostReceives();
      p.iteration_barrier_ = std::make_unique<gloo::BarrierAllToAll>(p.context_);
    } catch (const std::exception& e) {
      return Internal(std::string("control plane setup failed: ") + e.what());
    }
  }
  return plane;
}

void ControlPlane::PostReceives() {
  if (context_->rank == 0) {
    for (int from = 1; from < context_->size; ++from) {
      gathered_buffer_->recv(from, kUpSlot, kBlockBytes * static_cast<size_t>(from - 1), kBlockBytes);
    }
  } else {
    down_buffer_->recv(0, kDownSlot);
  }
}

Status ControlPlane::Exchange(Block* block) {
  if (context_->size <= 1) return OkStatus();
  const auto timeout = context_->getTimeout();
  try {
    if (context_->rank == 0) {
      for (int i = 1; i < context_->size; ++i) {
        if (!gathered_buffer_->waitRecv(timeout)) return Internal("world control plane: a receive was aborted");
      }
      up_ = *block;
      for (const Block& other : gathered_) {
        for (size_t i = 0; i < kMaxValues; ++i) up_[i] = std::max(up_[i], other[i]);
      }
      PostReceives();
      for (int to = 1; to < context_->size; ++to) up_buffer_->send(to, kDownSlot);
      for (int to = 1; to < context_->size; ++to) {
        if (!up_buffer_->waitSend(timeout)) return Internal("world control plane: a send was aborted");
      }
      *block = up_;
    } else {
      up_ = *block;
      up_buffer_->send(0, kUpSlot);
      if (!up_buffer_->waitSend(timeout)) return Internal("world control plane: a send was aborted");
      if (!down_buffer_->waitRecv(timeout)) return Internal("world control plane: a receive was aborted");
      *block = down_;
      PostReceives();
    }
  } catch (const std::exception& e) {
    return Internal(std::string("world control plane failed: ") + e.what());
  }
  return OkStatus();
}

Status ControlPlane::Barrier() {
  Block block{};
  Status s = Exchange(&block);
  if (!s.ok()) return Internal("world barrier: " + s.message());
  return OkStatus();
}

Status ControlPlane::IterationBarrier() {
  if (!iteration_barrier_) return OkStatus();
  try {
    iteration_barrier_->run();
  } catch (const std::exception& e) {
    return Internal(std::string("world barrier failed: ") + e.what());
  }
  return OkStatus();
}

Status ControlPlane::MaxAll(std::vector<double>* values) {
  if (values->size() > kMaxValues) {
    return InvalidArgument("world max-reduction of " + std::to_string(values->size()) + " values; at most " +
                           std::to_string(kMaxValues));
  }
  if (values->empty()) return OkStatus();
  Block block;
  block.fill(std::numeric_limits<double>::lowest());
  std::copy(values->begin(), values->end(), block.begin());
  RETURN_IF_ERROR(Exchange(&block));
  std::copy(block.begin(), block.begin() + static_cast<std::ptrdiff_t>(values->size()), values->begin());
  return OkStatus();
}

namespace {

// The worker's world control plane (lib/backend/world_control.h), registered for every binary that links this.
class GlooWorldControl : public WorldControl {
 public:
  explicit GlooWorldControl(std::unique_ptr<ControlPlane> plane) : plane_(std::move(plane)) {}
  Status Barrier() override { return plane_->Barrier(); }
  Status IterationBarrier() override { return plane_->IterationBarrier(); }
  Status MaxAll(std::vector<double>* values) override { return plane_->MaxAll(values); }

 private:
  std::unique_ptr<ControlPlane> plane_;
};

const bool kRegistered =
    RegisterWorldControl([](const WorldConnectRequest& r) -> StatusOr<std::unique_ptr<WorldControl>> {
      GlooConnectOptions options;
      options.rank = r.rank;
      options.size = r.size;
      options.store = r.store;
      options.host = r.host;
      options.iface = r.iface;
      options.timeout = r.timeout;
      ASSIGN_OR_RETURN(auto plane, ControlPlane::Connect(options));
      return std::unique_ptr<WorldControl>(std::make_unique<GlooWorldControl>(std::move(plane)));
    });

}  // namespace

}  // namespace commbench
