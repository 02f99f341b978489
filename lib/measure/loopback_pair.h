// A connected TCP pair over 127.0.0.1, for the host's own measurements (host_peak.h's bandwidth,
// host_reference.h's round trips): an owned descriptor and the listen / connect / accept that makes the pair.
#pragma once

#include <string>

#include "lib/core/status.h"

namespace commbench {

// Owns one file descriptor (-1: none) and closes it.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() { Reset(-1); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  void Reset(int fd);
  int get() const { return fd_; }

 private:
  int fd_;
};

// Connects `client` to `server` over 127.0.0.1 (an ephemeral port, the listener closed again). Unavailable,
// "<who>: <call>: <errno text>", when a call fails.
Status ConnectLoopbackPair(const std::string& who, Fd* client, Fd* server);

}  // namespace commbench
