#include "lib/measure/loopback_pair.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace commbench {

void Fd::Reset(int fd) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

Status ConnectLoopbackPair(const std::string& who, Fd* client, Fd* server) {
  auto failed = [&](const char* call) { return Unavailable(who + ": " + call + ": " + std::strerror(errno)); };
  Fd listener(::socket(AF_INET, SOCK_STREAM, 0));
  if (listener.get() < 0) return failed("socket");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  if (::bind(listener.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::listen(listener.get(), 1) != 0 ||
      ::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    return failed("bind/listen on 127.0.0.1");
  }
  client->Reset(::socket(AF_INET, SOCK_STREAM, 0));
  if (client->get() < 0 || ::connect(client->get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    return failed("connect to 127.0.0.1");
  }
  server->Reset(::accept(listener.get(), nullptr, nullptr));
  if (server->get() < 0) return failed("accept");
  return OkStatus();
}

}  // namespace commbench
