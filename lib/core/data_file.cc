#include "lib/core/data_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace commbench {

std::string FileKind(unsigned mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISLNK(mode)) return "a symlink";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  return "not a regular file";
}

StatusOr<std::string> ReadOpenedDataFile(int fd, const std::string& path, size_t max_bytes, std::string_view what) {
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const int e = errno;
    close(fd);
    return Unavailable(std::string(what) + " " + path + ": cannot read it: " + std::strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return InvalidArgument(std::string(what) + " " + path + " is " + FileKind(st.st_mode) +
                           " (accepted: a regular file)");
  }
  auto too_large = [&](uint64_t bytes) {
    return InvalidArgument(std::string(what) + " " + path + " is " + (bytes > max_bytes ? "over " : "") +
                           std::to_string(bytes) + " bytes (accepted: at most " + std::to_string(max_bytes) +
                           " bytes)");
  };
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    close(fd);
    return too_large(static_cast<uint64_t>(st.st_size));
  }
  // The file may grow while it is read: read at most one byte past the bound to tell.
  std::string text;
  text.resize(static_cast<size_t>(st.st_size) + 1);
  size_t done = 0;
  while (true) {
    if (done == text.size()) {
      if (text.size() > max_bytes) break;
      text.resize(std::min(max_bytes + 1, text.size() * 2));
    }
    const ssize_t n = read(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int e = errno;
      close(fd);
      return Unavailable(std::string(what) + " " + path + ": cannot read it: " + std::strerror(e));
    }
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  close(fd);
  if (done > max_bytes) return too_large(done);
  text.resize(done);
  return text;
}

StatusOr<std::string> ReadDataFile(const std::string& path, size_t max_bytes, std::string_view what) {
  if (path.empty()) return InvalidArgument(std::string(what) + ": an empty path (accepted: a regular file)");
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    const int e = errno;
    if (e == ENOENT) return NotFound(std::string(what) + " " + path + ": " + std::strerror(e));
    return Unavailable(std::string(what) + " " + path + ": cannot open it: " + std::strerror(e));
  }
  return ReadOpenedDataFile(fd, path, max_bytes, what);
}

}  // namespace commbench
