// Connecting Gloo contexts through our Store: shared by the gloo backend and the control plane.
// Header-light: Gloo types appear only as forward declarations.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "lib/core/status.h"
#include "lib/rendezvous/store.h"

namespace gloo {
class Context;
}

namespace commbench {

struct GlooConnectOptions {
  int rank = 0;
  int size = 1;
  Store* store = nullptr;  // keys are private to this context (prefixed by the caller)
  std::string host = "127.0.0.1";
  std::string iface;
  std::chrono::milliseconds timeout{30000};
};

// A full-mesh Gloo context over the TCP transport.
StatusOr<std::shared_ptr<gloo::Context>> ConnectGlooContext(const GlooConnectOptions& options);

}  // namespace commbench
