#include "lib/measure/socket_traffic.h"

#include <dirent.h>
#include <linux/sockios.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <string>

namespace commbench {
namespace {

bool IsTcpSocket(int fd) {
  int domain = 0, type = 0, protocol = 0;
  socklen_t len = sizeof(int);
  if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) != 0 || (domain != AF_INET && domain != AF_INET6)) {
    return false;
  }
  len = sizeof(int);
  if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 || type != SOCK_STREAM) return false;
  len = sizeof(int);
  return getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &protocol, &len) == 0 && protocol == IPPROTO_TCP;
}

// True where the link is a socket ("socket:[inode]"): the only fds worth a getsockopt.
bool IsSocketFd(int dir_fd, const char* name) {
  char target[64];
  const ssize_t n = readlinkat(dir_fd, name, target, sizeof(target) - 1);
  if (n <= 0) return false;
  target[n] = '\0';
  return std::strncmp(target, "socket:", 7) == 0;
}

}  // namespace

SocketBytes ProcessTcpBytes() {
  SocketBytes total;
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) {
    total.supported = false;
    return total;
  }
  const int dir_fd = dirfd(dir);
  while (const dirent* entry = readdir(dir)) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
    const int fd = std::atoi(entry->d_name);
    if (fd == dir_fd || !IsSocketFd(dir_fd, entry->d_name) || !IsTcpSocket(fd)) continue;
    tcp_info info;
    std::memset(&info, 0, sizeof(info));
    socklen_t len = sizeof(info);
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) continue;
    if (len < offsetof(tcp_info, tcpi_bytes_received) + sizeof(info.tcpi_bytes_received)) {
      total.supported = false;
      continue;
    }
    // A listening socket has neither queue (the ioctls fail: nothing to add or take).
    int unsent = 0, unread = 0;
    if (ioctl(fd, SIOCOUTQ, &unsent) != 0 || unsent < 0) unsent = 0;
    if (ioctl(fd, SIOCINQ, &unread) != 0 || unread < 0) unread = 0;
    total.sent += info.tcpi_bytes_acked + static_cast<uint64_t>(unsent);
    const uint64_t read = info.tcpi_bytes_received - std::min<uint64_t>(info.tcpi_bytes_received, unread);
    total.received += read;
    ++total.sockets;
  }
  closedir(dir);
  return total;
}

SocketBytes Since(const SocketBytes& before, const SocketBytes& after) {
  SocketBytes d;
  d.sent = after.sent > before.sent ? after.sent - before.sent : 0;
  d.received = after.received > before.received ? after.received - before.received : 0;
  d.sockets = after.sockets;
  d.supported = before.supported && after.supported;
  return d;
}

}  // namespace commbench
