// A full mesh of TCP connections among the ranks of a group, and a poll loop that moves several sends and
// receives at once (so that two ranks sending each other large buffers never block on full socket buffers).
#pragma once

#include <chrono>
#include <deque>
#include <string>
#include <vector>

#include "lib/backend/backend.h"

namespace commbench {
namespace native {

class SocketMesh {
 public:
  ~SocketMesh();

  // Listens on `host` (or the address of `iface`), publishes the address under store key
  // "native/tcp/addr/<rank>", connects to lower ranks and accepts higher ones.
  Status Connect(const ConnectRequest& request);

  // Queues a send of `bytes` at `data` to `peer` / a receive from `peer`; Progress moves all queued transfers.
  void QueueSend(int peer, const void* data, size_t bytes);
  void QueueRecv(int peer, void* data, size_t bytes);
  Status Progress();

  int rank() const { return rank_; }
  int size() const { return size_; }
  std::string Prefix() const { return "native/tcp rank " + std::to_string(global_rank_) + ": "; }

 private:
  struct Item {
    char* data;
    size_t left;
  };
  struct Peer {
    int fd = -1;
    std::deque<Item> sends;
    std::deque<Item> recvs;
  };
  Status Move(int peer, bool* progressed);

  int rank_ = 0;
  int size_ = 1;
  int global_rank_ = 0;
  std::chrono::milliseconds timeout_{30000};
  std::vector<Peer> peers_;
};

}  // namespace native
}  // namespace commbench
