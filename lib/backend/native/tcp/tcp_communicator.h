// The tcp transport: a full mesh of sockets between the ranks of a group. It runs the same schedules as shm:
// each pull becomes a send by the buffer's owner and a receive (then copy or reduce) by the puller; both sides
// compute every rank's schedule, so nothing but payload crosses the wire.
#pragma once

#include <memory>

#include "lib/backend/backend.h"

namespace commbench {
namespace native {

StatusOr<std::unique_ptr<Communicator>> ConnectTcp(const ConnectRequest& request, int ranks_on_host);

}  // namespace native
}  // namespace commbench
