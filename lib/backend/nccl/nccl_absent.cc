// The nccl backend in a build without CUDA: registered all the same, so that `commbench env` lists it and a
// sweep skips it with the reason, rather than calling it an unknown backend.
#include <memory>

#include "lib/backend/backend.h"
#include "lib/backend/nccl/support.h"
#include "lib/cuda/cuda_absent_reason.h"

namespace commbench::nccl {
namespace {

class AbsentNcclBackend : public Backend {
 public:
  std::string name() const override { return kBackendName; }
  Status Available() const override { return Unavailable(COMMBENCH_CUDA_ABSENT_REASON); }
  std::vector<AlgorithmInfo> Algorithms() const override { return NcclAlgorithms(); }
  BackendCapabilities Capabilities() const override { return NcclCapabilities(); }
  Status Supports(const OpRequest& request, int group_size) const override {
    RETURN_IF_ERROR(NcclSupports(request, group_size));
    return Available();
  }
  StatusOr<std::unique_ptr<Communicator>> Connect(const ConnectRequest&) override { return Available(); }
  std::string Version() const override { return "nccl (not built)"; }
};

[[maybe_unused]] const bool kRegistered =
    RegisterBackend(kBackendName, [] { return std::make_unique<AbsentNcclBackend>(); });

}  // namespace
}  // namespace commbench::nccl
