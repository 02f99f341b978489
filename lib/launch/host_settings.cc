#include "lib/launch/host_settings.h"

#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include "lib/core/affinity.h"
#include "lib/core/ranges.h"

namespace commbench {

Status CheckCpus(const std::vector<std::string>& cpu_lists, const std::vector<int>& allowed) {
  for (const std::string& list : cpu_lists) {
    if (list.empty()) continue;
    ASSIGN_OR_RETURN(std::vector<int> cpus, ParseCpuList(list, "--cpus"));
    for (int cpu : cpus) {
      if (std::find(allowed.begin(), allowed.end(), cpu) == allowed.end()) {
        return InvalidArgument("--cpus " + list + ": CPU " + std::to_string(cpu) +
                               " is not available to this process (accepted: CPUs within " + FormatCpuList(allowed) +
                               ")");
      }
    }
  }
  return OkStatus();
}

Status CheckBindableHost(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc = getaddrinfo(host.c_str(), nullptr, &hints, &found); rc != 0) {
    return InvalidArgument("--host '" + host + "': " + gai_strerror(rc) +
                           " (accepted: an IPv4 or IPv6 address of this host, or a name that resolves to one)");
  }
  std::string why = "no address";
  bool bound = false;
  for (addrinfo* a = found; a != nullptr && !bound; a = a->ai_next) {
    const int fd = socket(a->ai_family, a->ai_socktype, 0);
    if (fd < 0) continue;
    bound = bind(fd, a->ai_addr, a->ai_addrlen) == 0;  // port 0: any free port, released by close
    if (!bound) why = std::strerror(errno);
    close(fd);
  }
  freeaddrinfo(found);
  if (bound) return OkStatus();
  return InvalidArgument("--host '" + host + "': cannot bind to it (" + why +
                         "; accepted: an address of this host, e.g. 127.0.0.1)");
}

Status CheckInterface(const std::string& iface) {
  if (iface.empty() || if_nametoindex(iface.c_str()) != 0) return OkStatus();
  std::set<std::string> names;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) == 0) {
    for (ifaddrs* i = list; i != nullptr; i = i->ifa_next) names.insert(i->ifa_name);
    freeifaddrs(list);
  }
  std::string accepted;
  for (const std::string& n : names) accepted += (accepted.empty() ? "" : ", ") + n;
  return InvalidArgument("--iface '" + iface + "': no such interface (accepted: " + accepted + ")");
}

Status CheckHostSettings(const SweepSpec& spec) {
  RETURN_IF_ERROR(CheckCpus(spec.cpus, AllowedCpus()));
  // --iface wins over --host where both are given (ConnectRequest), so only the one in use is checked.
  if (!spec.iface.empty()) return CheckInterface(spec.iface);
  return CheckBindableHost(spec.host);
}

}  // namespace commbench
