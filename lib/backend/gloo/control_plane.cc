#include "lib/backend/gloo/control_plane.h"

#include <gloo/allreduce_ring.h>
#include <gloo/barrier_all_to_all.h>

namespace commbench {

ControlPlane::ControlPlane(std::shared_ptr<gloo::Context> context) : context_(std::move(context)) {}
ControlPlane::~ControlPlane() = default;

StatusOr<std::unique_ptr<ControlPlane>> ControlPlane::Connect(const GlooConnectOptions& options) {
  ASSIGN_OR_RETURN(auto context, ConnectGlooContext(options));
  return std::unique_ptr<ControlPlane>(new ControlPlane(std::move(context)));
}

Status ControlPlane::Barrier() {
  try {
    gloo::BarrierAllToAll barrier(context_);
    barrier.run();
    return OkStatus();
  } catch (const std::exception& e) {
    return Internal(std::string("world barrier failed: ") + e.what());
  }
}

Status ControlPlane::MaxAll(std::vector<double>* values) {
  if (context_->size == 1 || values->empty()) return OkStatus();
  try {
    gloo::AllreduceRing<double> reduce(context_, {values->data()}, static_cast<int>(values->size()),
                                       gloo::ReductionFunction<double>::max);
    reduce.run();
    return OkStatus();
  } catch (const std::exception& e) {
    return Internal(std::string("world max-reduction failed: ") + e.what());
  }
}

}  // namespace commbench
