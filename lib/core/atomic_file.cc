#include "lib/core/atomic_file.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <utility>

#include "lib/core/leftovers.h"

namespace commbench {
namespace {

std::string Why() { return strerror(errno); }

// The process's umask, read from /proc: umask(2) could only read it by changing it, which races with other
// threads creating files. 022 when /proc does not say.
mode_t CurrentUmask() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("Umask:", 0) == 0) return static_cast<mode_t>(std::stoul(line.substr(6), nullptr, 8));
  }
  return 022;
}

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// The file a write to `path` must replace: `path` itself, or the final target of a symlink (a dangling
// symlink's target is created). InvalidArgument when that is not a regular file.
StatusOr<std::string> ResolveTarget(const std::string& path) {
  if (path.empty()) return InvalidArgument("empty output path");
  std::string target = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st;
    if (lstat(target.c_str(), &st) != 0) {
      if (errno == ENOENT) return target;
      return Unavailable("cannot write " + path + ": " + Why());
    }
    if (S_ISREG(st.st_mode)) return target;
    if (!S_ISLNK(st.st_mode)) {
      const char* kind = S_ISDIR(st.st_mode)                          ? "a directory"
                         : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                         : S_ISFIFO(st.st_mode)                       ? "a FIFO"
                         : S_ISSOCK(st.st_mode)                       ? "a socket"
                                                                      : "not a regular file";
      return InvalidArgument("cannot write " + path + ": it is " + std::string(kind) +
                             " (accepted: a regular file, or a path that does not exist yet)");
    }
    char buf[PATH_MAX];
    const ssize_t n = readlink(target.c_str(), buf, sizeof(buf) - 1);
    if (n < 0) return Unavailable("cannot write " + path + ": " + Why());
    std::string link(buf, static_cast<size_t>(n));
    target = link.front() == '/' ? link : DirectoryOf(target) + "/" + link;
  }
  return InvalidArgument("cannot write " + path + ": too many levels of symbolic links");
}

}  // namespace

StatusOr<AtomicFile> AtomicFile::Create(const std::string& path) {
  ASSIGN_OR_RETURN(std::string target, ResolveTarget(path));
  RemoveLeftoverTempFiles(DirectoryOf(target));  // those of a killed run (leftovers.h)
  std::string tmp = target + ".tmp-" + std::to_string(getpid()) + "-XXXXXX";
  const int fd = mkstemp(tmp.data());
  if (fd < 0) return Unavailable("cannot write " + path + ": " + Why());
  struct stat old;
  if (stat(target.c_str(), &old) == 0) {
    // A file being replaced keeps its mode and owner: a result kept private (0600) must not become readable
    // to all. Changing the owner needs privilege; without it the file becomes ours, as any rewrite would.
    if (fchown(fd, old.st_uid, old.st_gid) != 0) {
      const int kept_group = fchown(fd, static_cast<uid_t>(-1), old.st_gid);  // fails unless we are in the group
      (void)kept_group;
    }
    fchmod(fd, old.st_mode & 07777);
  } else {
    fchmod(fd, 0666 & ~CurrentUmask());  // mkstemp makes 0600; a new output is created as open(2) would
  }
  return AtomicFile(std::move(target), std::move(tmp), fd);
}

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : target_(std::move(other.target_)), tmp_(std::move(other.tmp_)), fd_(std::exchange(other.fd_, -1)) {
  other.tmp_.clear();
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) close(fd_);
  if (!tmp_.empty()) unlink(tmp_.c_str());
}

Status AtomicFile::Fail(const std::string& why) {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  unlink(tmp_.c_str());
  tmp_.clear();
  return Internal("cannot write " + target_ + ": " + why);
}

Status AtomicFile::Write(std::string_view bytes) {
  if (fd_ < 0) return Internal("cannot write " + target_ + ": the file is closed");
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = write(fd_, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Fail(n == 0 ? "no space written" : Why());
    written += static_cast<size_t>(n);
  }
  return OkStatus();
}

Status AtomicFile::Commit() {
  if (fd_ < 0) return Internal("cannot write " + target_ + ": the file is closed");
  // A full disk may only show at fsync or close: check both before the rename replaces the previous file.
  if (fsync(fd_) != 0) return Fail(Why());
  const int fd = std::exchange(fd_, -1);
  if (close(fd) != 0) return Fail(Why());
  if (rename(tmp_.c_str(), target_.c_str()) != 0) return Fail(Why());
  tmp_.clear();
  return OkStatus();
}

Status CheckWritableOutput(const std::string& path) {
  ASSIGN_OR_RETURN(std::string target, ResolveTarget(path));
  const std::string dir = DirectoryOf(target);
  struct stat st;
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return InvalidArgument("cannot write " + path + ": directory " + dir + " does not exist");
  }
  if (access(dir.c_str(), W_OK | X_OK) != 0) {
    return InvalidArgument("cannot write " + path + ": directory " + dir + " is not writable (" + Why() + ")");
  }
  return OkStatus();
}

Status CheckAppendableOutput(const std::string& path) {
  ASSIGN_OR_RETURN(std::string target, ResolveTarget(path));
  if (access(target.c_str(), F_OK) != 0) return CheckWritableOutput(target);  // created on the first append
  if (access(target.c_str(), W_OK) != 0) {
    return InvalidArgument("cannot append to " + path + ": " + Why() +
                           " (accepted: a regular file this user may "
                           "write, or a path that does not exist yet)");
  }
  return OkStatus();
}

Status AppendToFile(const std::string& path, std::string_view text) {
  // O_NONBLOCK: a FIFO that appeared since the check fails (no reader) instead of hanging the run.
  const int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0666);
  if (fd < 0) return Unavailable("cannot append to " + path + ": " + Why());
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return Unavailable("cannot append to " + path + ": not a regular file");
  }
  size_t written = 0;
  std::string error;
  while (written < text.size() && error.empty()) {
    const ssize_t n = write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      error = n == 0 ? "no space written" : Why();
    else
      written += static_cast<size_t>(n);
  }
  // A full disk may only show at fsync or close.
  if (error.empty() && fsync(fd) != 0) error = Why();
  if (close(fd) != 0 && error.empty()) error = Why();
  if (!error.empty()) return Unavailable("cannot append to " + path + ": " + error);
  return OkStatus();
}

Status WriteFileAtomically(const std::string& path, std::string_view content) {
  ASSIGN_OR_RETURN(AtomicFile file, AtomicFile::Create(path));
  RETURN_IF_ERROR(file.Write(content));
  return file.Commit();
}

}  // namespace commbench
