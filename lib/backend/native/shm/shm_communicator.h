// The shm transport: the ranks of a group on one host share a control segment (one slot of flags per rank) and,
// per prepared Work, one segment per rank holding that rank's buffers. Every rank maps every peer's buffers, so
// a schedule's pulls are plain loads from peers' memory (zero copy): no FIFOs, no copy in and out.
#pragma once

#include <memory>
#include <string>

#include "lib/backend/backend.h"

namespace commbench {
namespace native {

// Connects the group through shared memory. `ranks_on_host` decides whether waiting may spin.
StatusOr<std::unique_ptr<Communicator>> ConnectShm(const ConnectRequest& request, int ranks_on_host);

}  // namespace native
}  // namespace commbench
