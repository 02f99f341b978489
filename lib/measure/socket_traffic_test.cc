#include "lib/measure/socket_traffic.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <vector>

namespace commbench {
namespace {

// A real loopback connection inside this process: what one end writes, the counters see sent once and received
// once (both ends are ours).
TEST(SocketTraffic, CountsWhatALoopbackConnectionCarries) {
  int listener = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  ASSERT_EQ(listen(listener, 1), 0);
  int client = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_EQ(connect(client, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  int server = accept(listener, nullptr, nullptr);
  ASSERT_GE(server, 0);

  const SocketBytes before = ProcessTcpBytes();
  ASSERT_TRUE(before.supported);
  EXPECT_GE(before.sockets, 2);
  const size_t kBytes = 300000;  // more than one socket buffer's worth is not needed: read as we go
  std::vector<char> out(kBytes, 'x'), in(kBytes);
  size_t sent = 0, got = 0;
  while (got < kBytes) {
    if (sent < kBytes) {
      ssize_t n = send(client, out.data() + sent, std::min<size_t>(kBytes - sent, 65536), 0);
      ASSERT_GT(n, 0);
      sent += static_cast<size_t>(n);
    }
    ssize_t n = recv(server, in.data() + got, kBytes - got, 0);
    ASSERT_GT(n, 0);
    got += static_cast<size_t>(n);
  }
  const SocketBytes after = ProcessTcpBytes();
  EXPECT_EQ(after.sent - before.sent, kBytes);
  EXPECT_EQ(after.received - before.received, kBytes);
  close(server);
  close(client);
  close(listener);
}

}  // namespace
}  // namespace commbench
