// The world-wide control plane of the worker ranks: a barrier and tiny max-reductions that keep every rank's
// decisions identical (iteration counts, "stop now"), whatever backend is measured. The worker knows it only
// through this interface; one implementation (Gloo over TCP, lib/backend/gloo/control_plane.h) registers itself.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lib/core/status.h"
#include "lib/rendezvous/store.h"

namespace commbench {

class WorldControl {
 public:
  static constexpr size_t kMaxValues = 4;  // per MaxAll

  virtual ~WorldControl() = default;
  // The harness's barrier: as cheap as the world allows.
  virtual Status Barrier() = 0;
  // The world-wide barrier a user's loop runs each iteration (`--sync world-barrier`): a measured workload, so it
  // is a framework's barrier (Gloo's all-to-all), whose cost grows with the ranks as the user's does.
  virtual Status IterationBarrier() { return Barrier(); }
  // Element-wise max over all ranks, in place; at most kMaxValues values.
  virtual Status MaxAll(std::vector<double>* values) = 0;
};

struct WorldConnectRequest {
  int rank = 0;
  int size = 1;
  Store* store = nullptr;  // keys private to the world (prefixed by the caller)
  std::string host = "127.0.0.1";
  std::string iface;
  std::chrono::milliseconds timeout{30000};
};

using WorldControlFactory = std::function<StatusOr<std::unique_ptr<WorldControl>>(const WorldConnectRequest&)>;
// From a static initialiser of the implementation's cc_library (alwayslink); the last registered wins.
bool RegisterWorldControl(WorldControlFactory factory);
// Fails, naming the missing implementation, when none was linked in.
StatusOr<std::unique_ptr<WorldControl>> ConnectWorldControl(const WorldConnectRequest& request);

}  // namespace commbench
