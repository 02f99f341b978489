#include "lib/backend/native/tcp/tcp_communicator.h"

namespace commbench {
namespace native {

StatusOr<std::unique_ptr<Communicator>> ConnectTcp(const ConnectRequest& request, int /*ranks_on_host*/) {
  return Unavailable("native/tcp rank " + std::to_string(request.place.rank) + ": tcp transport not built yet");
}

}  // namespace native
}  // namespace commbench
