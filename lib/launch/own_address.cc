#include "lib/launch/own_address.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace commbench {
namespace {

std::string Text(const sockaddr_in& a) {
  char buf[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &a.sin_addr, buf, sizeof(buf));
  return buf;
}

}  // namespace

StatusOr<std::string> InterfaceAddress(const std::string& iface) {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return Internal("cannot list the network interfaces");
  std::string found, names;
  for (ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_INET) continue;
    names += (names.empty() ? "" : ", ") + std::string(i->ifa_name);
    if (iface == i->ifa_name && found.empty()) found = Text(*reinterpret_cast<sockaddr_in*>(i->ifa_addr));
  }
  freeifaddrs(list);
  if (found.empty()) {
    return InvalidArgument("--iface " + iface + ": no such interface with an IPv4 address (accepted: " + names + ")");
  }
  return found;
}

std::string AddressTowards(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* res = nullptr;
  if (getaddrinfo(host.c_str(), "9", &hints, &res) != 0 || res == nullptr) return "";
  std::string out;
  const int fd = socket(AF_INET, SOCK_DGRAM, 0);
  // A UDP connect only picks the route and the source address; nothing is sent.
  if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) == 0) {
    sockaddr_in local{};
    socklen_t len = sizeof(local);
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) == 0) out = Text(local);
  }
  if (fd >= 0) close(fd);
  freeaddrinfo(res);
  return out == "0.0.0.0" ? "" : out;
}

std::string FirstNonLoopbackAddress() {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return "127.0.0.1";
  std::string found;
  for (ifaddrs* i = list; i != nullptr && found.empty(); i = i->ifa_next) {
    if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_INET) continue;
    if ((i->ifa_flags & IFF_UP) == 0 || (i->ifa_flags & IFF_LOOPBACK) != 0) continue;
    found = Text(*reinterpret_cast<sockaddr_in*>(i->ifa_addr));
  }
  freeifaddrs(list);
  return found.empty() ? "127.0.0.1" : found;
}

}  // namespace commbench
