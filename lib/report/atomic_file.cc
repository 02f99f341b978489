#include "lib/report/atomic_file.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace commbench {

Status WriteFileAtomically(const std::string& path, const std::string& content) {
  std::string tmp = path + ".tmp-XXXXXX";
  int fd = mkstemp(tmp.data());
  if (fd < 0) return Unavailable("cannot write " + path + ": " + strerror(errno));
  size_t written = 0;
  while (written < content.size()) {
    ssize_t n = write(fd, content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::string why = strerror(errno);
      close(fd);
      unlink(tmp.c_str());
      return Internal("cannot write " + path + ": " + why);
    }
    written += static_cast<size_t>(n);
  }
  fchmod(fd, 0644);  // mkstemp creates 0600; results are meant to be shared like any other output file
  if (close(fd) != 0 || rename(tmp.c_str(), path.c_str()) != 0) {
    std::string why = strerror(errno);
    unlink(tmp.c_str());
    return Internal("cannot write " + path + ": " + why);
  }
  return OkStatus();
}

}  // namespace commbench
