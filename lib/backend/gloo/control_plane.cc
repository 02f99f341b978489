#include "lib/backend/gloo/control_plane.h"

#include <gloo/allreduce_ring.h>
#include <gloo/barrier_all_to_all.h>

#include <algorithm>
#include <limits>
#include <string>

namespace commbench {

ControlPlane::ControlPlane(std::shared_ptr<gloo::Context> context) : context_(std::move(context)) {}
ControlPlane::~ControlPlane() = default;

StatusOr<std::unique_ptr<ControlPlane>> ControlPlane::Connect(const GlooConnectOptions& options) {
  ASSIGN_OR_RETURN(auto context, ConnectGlooContext(options));
  std::unique_ptr<ControlPlane> plane(new ControlPlane(std::move(context)));
  if (plane->context_->size > 1) {
    try {
      // Every rank builds them in the same order, so their Gloo slots agree.
      plane->barrier_ = std::make_unique<gloo::BarrierAllToAll>(plane->context_);
      plane->max_all_ = std::make_unique<gloo::AllreduceRing<double>>(
          plane->context_, std::vector<double*>{plane->max_values_.data()}, static_cast<int>(kMaxValues),
          gloo::ReductionFunction<double>::max);
    } catch (const std::exception& e) {
      return Internal(std::string("control plane setup failed: ") + e.what());
    }
  }
  return plane;
}

Status ControlPlane::Barrier() {
  if (!barrier_) return OkStatus();
  try {
    barrier_->run();
    return OkStatus();
  } catch (const std::exception& e) {
    return Internal(std::string("world barrier failed: ") + e.what());
  }
}

Status ControlPlane::MaxAll(std::vector<double>* values) {
  if (values->size() > kMaxValues) {
    return InvalidArgument("world max-reduction of " + std::to_string(values->size()) + " values; at most " +
                           std::to_string(kMaxValues));
  }
  if (!max_all_ || values->empty()) return OkStatus();
  max_values_.fill(std::numeric_limits<double>::lowest());
  std::copy(values->begin(), values->end(), max_values_.begin());
  try {
    max_all_->run();
  } catch (const std::exception& e) {
    return Internal(std::string("world max-reduction failed: ") + e.what());
  }
  std::copy(max_values_.begin(), max_values_.begin() + static_cast<std::ptrdiff_t>(values->size()), values->begin());
  return OkStatus();
}

namespace {

// The worker's world control plane (lib/backend/world_control.h), registered for every binary that links this.
class GlooWorldControl : public WorldControl {
 public:
  explicit GlooWorldControl(std::unique_ptr<ControlPlane> plane) : plane_(std::move(plane)) {}
  Status Barrier() override { return plane_->Barrier(); }
  Status MaxAll(std::vector<double>* values) override { return plane_->MaxAll(values); }

 private:
  std::unique_ptr<ControlPlane> plane_;
};

const bool kRegistered = RegisterWorldControl([](const WorldConnectRequest& r) -> StatusOr<std::unique_ptr<WorldControl>> {
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
