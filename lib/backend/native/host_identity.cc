#include "lib/backend/native/host_identity.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

namespace commbench {
namespace native {

std::string NetNamespaceId() {
  // thread-self first: a thread may have entered a namespace of its own (setns, unshare), and its sockets live
  // there; /proc/self names the process's main thread.
  for (const char* path : {"/proc/thread-self/ns/net", "/proc/self/ns/net"}) {
    char link[64] = {0};
    const ssize_t n = readlink(path, link, sizeof(link) - 1);
    if (n > 0) return std::string(link, static_cast<size_t>(n));
    struct stat st {};
    if (stat(path, &st) == 0) return "net:[" + std::to_string(st.st_ino) + "]";
  }
  return "";
}

std::string HostIdentity() {
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  std::ifstream boot("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(boot, id);
  return std::string(host) + "/" + id + "/" + NetNamespaceId();
}

}  // namespace native
}  // namespace commbench
