// Backend "native": our own collectives. Ranks of a group that share a host talk through shared memory;
// otherwise (another machine, or another network namespace: host_identity.h) through TCP. Backend "native-tcp"
// forces TCP (to compare the transports on one host).
// COMMBENCH_NATIVE_TRANSPORT=shm|tcp overrides the choice for "native".
#include <algorithm>
#include <cstdlib>

#include "lib/backend/backend.h"
#include "lib/backend/native/host_identity.h"
#include "lib/backend/native/reduce.h"
#include "lib/backend/native/schedule.h"
#include "lib/backend/native/shm/shm_communicator.h"
#include "lib/backend/native/tcp/tcp_communicator.h"

namespace commbench {
namespace native {
namespace {

// Every rank of the group on this host (HostIdentity: same hostname, boot and network namespace).
StatusOr<bool> AllOnThisHost(const ConnectRequest& request) {
  const std::string mine = HostIdentity();
  const int n = request.place.group_size;
  RETURN_IF_ERROR(request.store->Set("native/host/" + std::to_string(request.place.group_rank),
                                     std::vector<char>(mine.begin(), mine.end())));
  bool same = true;
  for (int q = 0; q < n; ++q) {
    ASSIGN_OR_RETURN(std::vector<char> theirs, request.store->Get("native/host/" + std::to_string(q), request.timeout));
    same = same && std::string(theirs.begin(), theirs.end()) == mine;
  }
  return same;
}

class NativeBackend : public Backend {
 public:
  explicit NativeBackend(bool tcp_only) : tcp_only_(tcp_only) {}

  std::string name() const override { return tcp_only_ ? "native-tcp" : "native"; }
  Status Available() const override { return OkStatus(); }
  std::string Version() const override { return "native 1 (kernels " + std::string(KernelIsa()) + ")"; }

  std::vector<AlgorithmInfo> Algorithms() const override {
    std::vector<AlgorithmInfo> out;
    for (const auto& a : AlgorithmTable()) out.push_back(AlgorithmInfo{a.name, a.op, a.description, a.suits});
    return out;
  }

  BackendCapabilities Capabilities() const override {
    BackendCapabilities caps;
    caps.transport = tcp_only_ ? Transport::kTcp : Transport::kSharedMemory;
    caps.traffic_model = TrafficModel::kNativeSchedules;
    caps.counts_peer_copies = true;
    if (!tcp_only_) caps.tcp_twin = "native-tcp";
    return caps;
  }

  Status Supports(const OpRequest& r, int /*group_size*/) const override {
    RETURN_IF_ERROR(CheckCapabilities("native", Capabilities(), r));
    if (r.algo != "auto" && !native::Supports(r.algo, r.op)) {
      return InvalidArgument("native has no " + std::string(Name(r.op)) + " algorithm '" + r.algo + "'");
    }
    return OkStatus();
  }

  StatusOr<std::unique_ptr<Communicator>> Connect(const ConnectRequest& request) override {
    if (request.store == nullptr) return InvalidArgument("native: Connect needs a store");
    std::string transport = tcp_only_ ? "tcp" : "auto";
    if (const char* env = std::getenv("COMMBENCH_NATIVE_TRANSPORT"); env != nullptr && !tcp_only_) transport = env;
    if (transport == "auto") {
      ASSIGN_OR_RETURN(bool local, AllOnThisHost(request));
      transport = local ? "shm" : "tcp";
    }
    const int ranks_on_host = std::max(request.place.world, request.place.group_size);
    if (transport == "shm") return ConnectShm(request, ranks_on_host);
    if (transport == "tcp") return ConnectTcp(request, ranks_on_host);
    return InvalidArgument("COMMBENCH_NATIVE_TRANSPORT: unknown transport '" + transport +
                           "' (accepted: auto, shm, tcp)");
  }

 private:
  bool tcp_only_;
};

const bool kRegistered = RegisterBackend("native", [] { return std::make_unique<NativeBackend>(false); }) &&
                         RegisterBackend("native-tcp", [] { return std::make_unique<NativeBackend>(true); });

}  // namespace
}  // namespace native
}  // namespace commbench
