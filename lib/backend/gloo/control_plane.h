// The world-wide control plane of the worker ranks: barriers and tiny max-reductions that keep every rank's
// decisions identical (iteration counts, "stop now"). Always Gloo over TCP, whatever backend is measured.
#pragma once

#include <memory>
#include <vector>

#include "lib/backend/gloo/gloo_context.h"

namespace commbench {

class ControlPlane {
 public:
  static StatusOr<std::unique_ptr<ControlPlane>> Connect(const GlooConnectOptions& options);
  ~ControlPlane();

  Status Barrier();
  // Element-wise max over all ranks, in place.
  Status MaxAll(std::vector<double>* values);

 private:
  explicit ControlPlane(std::shared_ptr<gloo::Context> context);
  std::shared_ptr<gloo::Context> context_;
};

}  // namespace commbench
