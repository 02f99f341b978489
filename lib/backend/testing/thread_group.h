// Test harness: a group of ranks as threads of one process, each with its own Communicator connected through a
// FileStore in a private temporary directory.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "lib/backend/backend.h"

namespace commbench {
namespace testing {

// Connects `n` thread ranks of `backend` and runs `body` on each; returns each rank's status.
std::vector<Status> RunThreads(const std::string& backend, int n,
                               const std::function<Status(int rank, Communicator* comm)>& body);

// Prepares `request`, runs it `iters` times with fresh checkable input each time, and checks the output. A group
// barrier follows each check: some transports (Gloo's allgather) write into peers' output buffers directly.
Status RunAndCheck(Communicator* comm, const OpRequest& request, int rank, int n, int iters);

}  // namespace testing
}  // namespace commbench
