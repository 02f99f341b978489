#include "lib/backend/world_control.h"

namespace commbench {
namespace {

WorldControlFactory& Factory() {
  static WorldControlFactory factory;
  return factory;
}

}  // namespace

bool RegisterWorldControl(WorldControlFactory factory) {
  Factory() = std::move(factory);
  return true;
}

StatusOr<std::unique_ptr<WorldControl>> ConnectWorldControl(const WorldConnectRequest& request) {
  if (!Factory()) return Internal("no world control plane linked in (//lib/backend/gloo:control_plane)");
  return Factory()(request);
}

}  // namespace commbench
