#include "lib/backend/native/tcp/socket_mesh.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

namespace commbench {
namespace native {
namespace {

std::string Errno(const std::string& what) { return what + ": " + std::strerror(errno); }

StatusOr<std::string> InterfaceAddress(const std::string& iface) {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return Internal(Errno("getifaddrs"));
  std::string found;
  for (ifaddrs* a = list; a != nullptr; a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != AF_INET || iface != a->ifa_name) continue;
    char buf[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr, buf, sizeof(buf));
    found = buf;
    break;
  }
  freeifaddrs(list);
  if (found.empty()) return InvalidArgument("--iface: no IPv4 address on interface '" + iface + "'");
  return found;
}

// Best effort: Linux caps the sizes at net.core.*mem_max, and a refusal only costs throughput.
void Tune(int fd) {
  int one = 1;
  int bytes = 4 << 20;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof(bytes));
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes));
}

Status WriteAll(int fd, const void* data, size_t bytes) {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    ssize_t n = send(fd, p, bytes, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Unavailable(Errno("send"));
    p += n;
    bytes -= static_cast<size_t>(n);
  }
  return OkStatus();
}

Status ReadAll(int fd, void* data, size_t bytes) {
  char* p = static_cast<char*>(data);
  while (bytes > 0) {
    ssize_t n = recv(fd, p, bytes, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Unavailable(n == 0 ? "connection closed" : Errno("recv"));
    p += n;
    bytes -= static_cast<size_t>(n);
  }
  return OkStatus();
}

}  // namespace

SocketMesh::~SocketMesh() {
  for (auto& p : peers_) {
    if (p.fd >= 0) close(p.fd);
  }
}

Status SocketMesh::Connect(const ConnectRequest& request) {
  rank_ = request.place.group_rank;
  size_ = request.place.group_size;
  global_rank_ = request.place.rank;
  timeout_ = request.timeout;
  peers_.assign(static_cast<size_t>(size_), Peer());
  if (size_ == 1) return OkStatus();
  std::string host = request.host;
  if (!request.iface.empty()) {
    ASSIGN_OR_RETURN(host, InterfaceAddress(request.iface));
  }

  int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener < 0) return Internal(Prefix() + Errno("socket"));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = 0;
  if (inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) {
    close(listener);
    return InvalidArgument(Prefix() + "host '" + host + "' is not an IPv4 address");
  }
  socklen_t len = sizeof(addr);
  if (bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || listen(listener, size_) != 0 ||
      getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    Status st = Internal(Prefix() + Errno("listen on " + host));
    close(listener);
    return st;
  }
  std::string me = host + ":" + std::to_string(ntohs(addr.sin_port));
  Status st = request.store->Set("native/tcp/addr/" + std::to_string(rank_), std::vector<char>(me.begin(), me.end()));
  // Lower ranks: connect and introduce ourselves.
  for (int q = 0; q < rank_ && st.ok(); ++q) {
    auto value = request.store->Get("native/tcp/addr/" + std::to_string(q), timeout_);
    if (!value.ok()) {
      st = value.status();
      break;
    }
    std::string text(value->begin(), value->end());
    size_t colon = text.rfind(':');
    sockaddr_in peer{};
    peer.sin_family = AF_INET;
    peer.sin_port = htons(static_cast<uint16_t>(std::stoi(text.substr(colon + 1))));
    inet_pton(AF_INET, text.substr(0, colon).c_str(), &peer.sin_addr);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (connect(fd, reinterpret_cast<sockaddr*>(&peer), sizeof(peer)) != 0) {
      st = Unavailable(Prefix() + Errno("connect to rank " + std::to_string(q) + " at " + text));
      close(fd);
      break;
    }
    int32_t id = rank_;
    st = WriteAll(fd, &id, sizeof(id));
    peers_[static_cast<size_t>(q)].fd = fd;
  }
  // Higher ranks: accept and learn who they are.
  for (int i = rank_ + 1; i < size_ && st.ok(); ++i) {
    pollfd pfd{listener, POLLIN, 0};
    if (poll(&pfd, 1, static_cast<int>(timeout_.count())) != 1) {
      st = DeadlineExceeded(Prefix() + "peers did not connect within " + std::to_string(timeout_.count()) + " ms");
      break;
    }
    int fd = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    int32_t id = -1;
    if (fd < 0 || !ReadAll(fd, &id, sizeof(id)).ok() || id <= rank_ || id >= size_ ||
        peers_[static_cast<size_t>(id)].fd >= 0) {
      if (fd >= 0) close(fd);
      st = Internal(Prefix() + "bad handshake from a peer");
      break;
    }
    peers_[static_cast<size_t>(id)].fd = fd;
  }
  close(listener);
  if (!st.ok()) return st;
  for (auto& p : peers_) {
    if (p.fd < 0) continue;
    Tune(p.fd);
    fcntl(p.fd, F_SETFL, fcntl(p.fd, F_GETFL) | O_NONBLOCK);
  }
  return OkStatus();
}

void SocketMesh::QueueSend(int peer, const void* data, size_t bytes) {
  if (bytes > 0)
    peers_[static_cast<size_t>(peer)].sends.push_back(Item{const_cast<char*>(static_cast<const char*>(data)), bytes});
}

void SocketMesh::QueueRecv(int peer, void* data, size_t bytes) {
  if (bytes > 0) peers_[static_cast<size_t>(peer)].recvs.push_back(Item{static_cast<char*>(data), bytes});
}

Status SocketMesh::Move(int q, bool* progressed) {
  Peer& p = peers_[static_cast<size_t>(q)];
  while (!p.sends.empty()) {
    Item& it = p.sends.front();
    ssize_t n = send(p.fd, it.data, it.left, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) break;
      return Unavailable(Prefix() + Errno("send to group rank " + std::to_string(q)));
    }
    *progressed = true;
    it.data += n;
    it.left -= static_cast<size_t>(n);
    if (it.left == 0) p.sends.pop_front();
  }
  while (!p.recvs.empty()) {
    Item& it = p.recvs.front();
    ssize_t n = recv(p.fd, it.data, it.left, 0);
    if (n == 0) return Unavailable(Prefix() + "group rank " + std::to_string(q) + " closed the connection (exited?)");
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) break;
      return Unavailable(Prefix() + Errno("recv from group rank " + std::to_string(q)));
    }
    *progressed = true;
    it.data += n;
    it.left -= static_cast<size_t>(n);
    if (it.left == 0) p.recvs.pop_front();
  }
  return OkStatus();
}

Status SocketMesh::Progress() {
  auto last_progress = std::chrono::steady_clock::now();
  std::vector<pollfd> fds;
  std::vector<int> who;
  for (;;) {
    bool progressed = false;
    fds.clear();
    who.clear();
    for (int q = 0; q < size_; ++q) {
      Peer& p = peers_[static_cast<size_t>(q)];
      if (p.sends.empty() && p.recvs.empty()) continue;
      RETURN_IF_ERROR(Move(q, &progressed));
      short events = static_cast<short>((p.sends.empty() ? 0 : POLLOUT) | (p.recvs.empty() ? 0 : POLLIN));
      if (events != 0) {
        fds.push_back(pollfd{p.fd, events, 0});
        who.push_back(q);
      }
    }
    if (fds.empty()) return OkStatus();
    auto now = std::chrono::steady_clock::now();
    if (progressed) last_progress = now;
    if (now - last_progress > timeout_) {
      return DeadlineExceeded(Prefix() + "no progress for " + std::to_string(timeout_.count()) + " ms");
    }
    if (!progressed) poll(fds.data(), fds.size(), 100);
  }
}

}  // namespace native
}  // namespace commbench
