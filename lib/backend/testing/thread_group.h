// Test harness: a group of ranks as threads of one process, each with its own Communicator connected through a
// FileStore in a private temporary directory.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "lib/backend/backend.h"

namespace commbench {
namespace testing {

// Thread ranks leave together, as the worker's do (RankRunner::LeaveTogether): a rank that destroys its sockets
// right after the final barrier can make a peer still inside it fail with "Connection closed by peer" (seen with
// Gloo: 1 run in 40 of the control-plane test). Each rank arrives once: after its final barrier it waits (up to
// 20 s) for the others before its communicator goes; on an error path a Departure's destructor arrives without
// waiting, so nobody waits for a rank that already failed.
class ExitLatch {
 public:
  explicit ExitLatch(int n);
  void Arrive();
  void ArriveAndWait();

 private:
  const int n_;
  std::atomic<int> arrived_{0};
};

// Declare before the communicator, so that on an error path it arrives after the communicator is gone.
class Departure {
 public:
  explicit Departure(ExitLatch* latch) : latch_(latch) {}
  ~Departure();
  void LeaveTogether();

 private:
  ExitLatch* latch_;
  bool waited_ = false;
};

// Connects `n` thread ranks of `backend` and runs `body` on each; returns each rank's status.
std::vector<Status> RunThreads(const std::string& backend, int n,
                               const std::function<Status(int rank, Communicator* comm)>& body);

// Prepares `request`, runs it `iters` times with fresh checkable input each time, and checks the output. A group
// barrier follows each check: some transports (Gloo's allgather) write into peers' output buffers directly.
Status RunAndCheck(Communicator* comm, const OpRequest& request, int rank, int n, int iters);

}  // namespace testing
}  // namespace commbench
