// What this process's TCP sockets carried, from the kernel's own per-socket counters (getsockopt TCP_INFO on every
// socket fd listed in /proc/self/fd). Taken before and after a rank's timed loop, the difference is the payload
// bytes that crossed its sockets: what its transport wrote (its framing included), without TCP/IP headers.
#pragma once

#include <cstdint>

namespace commbench {

struct SocketBytes {
  // Bytes the application handed to TCP: acknowledged by the peer (tcpi_bytes_acked) plus those still in the
  // send queue (SIOCOUTQ), so data the peer has not acknowledged yet is not missed.
  uint64_t sent = 0;
  // Bytes the application read: received in order (tcpi_bytes_received) less those still waiting to be read
  // (SIOCINQ), so a peer's early data counts in the window of the op that reads it.
  uint64_t received = 0;
  int sockets = 0;        // TCP sockets counted
  bool supported = true;  // false where the kernel's TCP_INFO lacks the byte counters (before Linux 4.1/4.2)
};

SocketBytes ProcessTcpBytes();

// after - before, field by field (0 where a socket closed in between made a counter fall).
SocketBytes Since(const SocketBytes& before, const SocketBytes& after);

}  // namespace commbench
