#include "lib/core/store_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <random>
#include <utility>

#include "lib/core/data_file.h"

namespace commbench {
namespace {

std::string Why(int e) { return std::strerror(e); }

Status Refused(const std::string& path, const std::string& why) {
  return InvalidArgument("store " + path + " " + why +
                         "; refused (a store must be a real directory of this user that nobody else may write)");
}

// A name commbench built itself: one component, no separator, never "." or "..". A caller's bug otherwise.
Status CheckName(const std::string& dir, const std::string& name) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
      name.find('\0') != std::string::npos) {
    return Internal("store " + dir + ": '" + name + "' is not a file name of the store");
  }
  return OkStatus();
}

StatusOr<int> CheckOurs(int fd, const std::string& path) {
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const int e = errno;
    close(fd);
    return Unavailable("store " + path + ": " + Why(e));
  }
  std::string why;
  if (!S_ISDIR(st.st_mode))
    why = "is not a directory";
  else if (st.st_uid != geteuid())
    why = "belongs to user " + std::to_string(st.st_uid) + ", not to this one";
  else if ((st.st_mode & S_IWOTH) != 0)
    why = "may be written by every user (mode " + std::to_string(st.st_mode & 0777) + ")";
  if (!why.empty()) {
    close(fd);
    return Refused(path, why);
  }
  return fd;
}

StatusOr<int> OpenDirAt(int parent, const std::string& name, const std::string& shown, bool create) {
  if (create && mkdirat(parent, name.c_str(), 0777) != 0 && errno != EEXIST) {
    return InvalidArgument("store " + shown + ": cannot create the directory: " + Why(errno));
  }
  const int fd = openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    struct stat st;
    if (fstatat(parent, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
      if (S_ISLNK(st.st_mode)) return Refused(shown, "is a symlink");
      if (!S_ISDIR(st.st_mode)) return Refused(shown, "is " + FileKind(st.st_mode) + ", not a directory");
    }
    if (e == ENOENT) return NotFound("store " + shown + " does not exist");
    return Unavailable("store " + shown + ": cannot open it: " + Why(e));
  }
  return CheckOurs(fd, shown);
}

std::string RandomSuffix() {
  static std::atomic<uint64_t> counter{0};
  std::random_device rd;
  const uint64_t v = (static_cast<uint64_t>(rd()) << 20) ^ counter++;
  static const char* kChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::string s;
  for (int i = 0; i < 6; ++i) s += kChars[(v >> (6 * i)) % 62];
  return s;
}

bool WriteAll(int fd, std::string_view content) {
  size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = ENOSPC;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

int TakeFlock(int fd) {
  while (flock(fd, LOCK_EX) != 0) {
    if (errno != EINTR) return -1;
  }
  return 0;
}

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string BaseOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string EncodeStoreName(std::string_view text, size_t max_length) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                       c == '-' || (c == '.' && i > 0);
    if (plain) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  if (out.empty()) out = "%";
  if (max_length < 24) max_length = 24;
  if (out.size() > max_length) {  // a readable head, made unique by a hash of the whole text (FNV-1a 64)
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
    char tail[20];
    std::snprintf(tail, sizeof(tail), "~%016llx", static_cast<unsigned long long>(h));
    std::string head = out.substr(0, max_length - 17);
    const size_t percent = head.rfind('%');
    if (percent != std::string::npos && percent + 3 > head.size()) head.resize(percent);  // never a cut %XX
    out = head + tail;
  }
  return out;
}

StatusOr<StoreDir> StoreDir::Open(const std::string& path, bool create) {
  if (path.empty()) return InvalidArgument("store: an empty path (accepted: a directory)");
  const std::string parent = DirectoryOf(path), base = BaseOf(path);
  if (base.empty() || base == "." || base == "..") {
    // "dir/", ".", "..": open it directly (still never through a final symlink: the path names a directory).
    const int fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return Unavailable("store " + path + ": cannot open it: " + Why(errno));
    ASSIGN_OR_RETURN(int checked, CheckOurs(fd, path));
    return StoreDir(checked, path);
  }
  const int parent_fd = open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (parent_fd < 0)
    return InvalidArgument("store " + path + ": its directory " + parent + " cannot be opened: " + Why(errno));
  StatusOr<int> fd = OpenDirAt(parent_fd, base, path, create);
  close(parent_fd);
  if (!fd.ok()) return fd.status();
  return StoreDir(*fd, path);
}

StatusOr<StoreDir> StoreDir::Subdir(const std::string& name, bool create) const {
  RETURN_IF_ERROR(CheckName(path_, name));
  ASSIGN_OR_RETURN(int fd, OpenDirAt(fd_, name, path_ + "/" + name, create));
  return StoreDir(fd, path_ + "/" + name);
}

StoreDir::StoreDir(StoreDir&& other) noexcept : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {}

StoreDir& StoreDir::operator=(StoreDir&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
  }
  return *this;
}

StoreDir::~StoreDir() {
  if (fd_ >= 0) close(fd_);
}

StatusOr<std::string> StoreDir::WriteTemporary(const std::string& name, std::string_view content, unsigned mode) const {
  // Named as AtomicFile names its temporary files, so that a killed writer's are recognised and removed.
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::string tmp = "." + name.substr(0, 100) + ".tmp-" + std::to_string(getpid()) + "-" + RandomSuffix();
    const int fd = openat(fd_, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0) return Unavailable("store " + path_ + ": cannot create a file: " + Why(errno));
    bool ok = fchmod(fd, mode) == 0 && WriteAll(fd, content) && fsync(fd) == 0;
    int e = errno;
    if (close(fd) != 0 && ok) {
      ok = false;
      e = errno;
    }
    if (!ok) {
      unlinkat(fd_, tmp.c_str(), 0);
      return Unavailable("store " + path_ + ": cannot write " + name + ": " + Why(e));
    }
    return tmp;
  }
  return Unavailable("store " + path_ + ": cannot create a temporary file for " + name);
}

Status StoreDir::Replace(const std::string& name, std::string_view content) const {
  RETURN_IF_ERROR(CheckName(path_, name));
  unsigned mode = 0666 & ~0022u;
  struct stat st;
  if (fstatat(fd_, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
    if (!S_ISREG(st.st_mode)) {
      return InvalidArgument("store " + path_ + ": " + name + " is " + FileKind(st.st_mode) +
                             " (refused: a store replaces only its own regular files, never through a link)");
    }
    mode = st.st_mode & 0777;
  }
  ASSIGN_OR_RETURN(std::string tmp, WriteTemporary(name, content, mode));
  // A link planted after the check is replaced itself (rename never follows the new name): no write elsewhere.
  if (renameat(fd_, tmp.c_str(), fd_, name.c_str()) != 0) {
    const int e = errno;
    unlinkat(fd_, tmp.c_str(), 0);
    return Unavailable("store " + path_ + ": cannot replace " + name + ": " + Why(e));
  }
  return OkStatus();
}

Status StoreDir::CreateNew(const std::string& name, std::string_view content) const {
  RETURN_IF_ERROR(CheckName(path_, name));
  ASSIGN_OR_RETURN(std::string tmp, WriteTemporary(name, content, 0666 & ~0022u));
  // A hard link never replaces anything, a symlink at `name` included.
  const int linked = linkat(fd_, tmp.c_str(), fd_, name.c_str(), 0);
  const int e = errno;
  unlinkat(fd_, tmp.c_str(), 0);
  if (linked == 0) return OkStatus();
  if (e == EEXIST) {
    struct stat st;
    const bool link = fstatat(fd_, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
    return InvalidArgument("store " + path_ + ": " + name + " already exists" +
                           (link ? " as a symlink (refused: a store never writes through a link)" : ""));
  }
  return Unavailable("store " + path_ + ": cannot create " + name + ": " + Why(e));
}

StatusOr<std::string> StoreDir::Read(const std::string& name, size_t max_bytes, std::string_view what) const {
  RETURN_IF_ERROR(CheckName(path_, name));
  const int fd = openat(fd_, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  const std::string shown = path_ + "/" + name;
  if (fd < 0) {
    const int e = errno;
    if (e == ENOENT) return NotFound(std::string(what) + " " + shown + " does not exist");
    if (e == ELOOP)
      return InvalidArgument(std::string(what) + " " + shown +
                             " is a symlink (refused: a store's files are read only as its own regular files)");
    return Unavailable(std::string(what) + " " + shown + ": cannot open it: " + Why(e));
  }
  return ReadOpenedDataFile(fd, shown, max_bytes, what);
}

bool StoreDir::Exists(const std::string& name) const {
  struct stat st;
  return CheckName(path_, name).ok() && fstatat(fd_, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
}

StatusOr<std::vector<std::string>> StoreDir::ListFiles() const {
  const int fd = openat(fd_, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Unavailable("store " + path_ + ": cannot list it: " + Why(errno));
  DIR* dir = fdopendir(fd);
  if (dir == nullptr) {
    close(fd);
    return Unavailable("store " + path_ + ": cannot list it: " + Why(errno));
  }
  std::vector<std::string> names;
  while (const dirent* e = readdir(dir)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    struct stat st;
    if (fstatat(fd_, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode)) names.push_back(name);
  }
  closedir(dir);
  return names;
}

StoreDir::Lock::Lock(Lock&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
StoreDir::Lock::~Lock() {
  if (fd_ >= 0) close(fd_);  // releases the flock
}

StatusOr<StoreDir::Lock> StoreDir::TakeLock(const std::string& name) const {
  RETURN_IF_ERROR(CheckName(path_, name));
  const int fd = openat(fd_, name.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
  const std::string shown = path_ + "/" + name;
  if (fd < 0) {
    if (errno == ELOOP)
      return InvalidArgument("store lock " + shown + " is a symlink (refused: a store never writes through a link)");
    return Unavailable("store lock " + shown + ": cannot open it: " + Why(errno));
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return InvalidArgument("store lock " + shown + " is not a regular file (refused)");
  }
  if (TakeFlock(fd) != 0) {
    const int e = errno;
    close(fd);
    return Unavailable("store lock " + shown + ": cannot lock it: " + Why(e));
  }
  return Lock(fd);
}

Status ReplaceStoreFile(const std::string& path, std::string_view content) {
  const std::string parent = DirectoryOf(path), base = BaseOf(path);
  if (base.empty() || base == "." || base == "..") return InvalidArgument("cannot write " + path + ": not a file name");
  const int dir = open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return InvalidArgument("cannot write " + path + ": directory " + parent + ": " + Why(errno));
  // The directory was the user's choice; the file itself is never reached through a link.
  StoreDir store(dir, parent);
  return store.Replace(base, content);
}

Status CheckStoreFileTarget(const std::string& path) {
  struct stat st;
  if (lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    return InvalidArgument("cannot write " + path + ": it is " + FileKind(st.st_mode) +
                           " (accepted: a regular file or a new path; a store is never written through a link)");
  }
  const std::string dir = DirectoryOf(path);
  if (access(dir.c_str(), W_OK | X_OK) != 0) {
    return InvalidArgument("cannot write " + path + ": directory " + dir + ": " + Why(errno));
  }
  return OkStatus();
}

StatusOr<FileLock> FileLock::Take(const std::string& path) {
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
  if (fd < 0) {
    if (errno == ELOOP)
      return InvalidArgument("lock " + path + " is a symlink (refused: never written through a link)");
    return Unavailable("lock " + path + ": cannot open it: " + Why(errno));
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return InvalidArgument("lock " + path + " is not a regular file (refused)");
  }
  if (TakeFlock(fd) != 0) {
    const int e = errno;
    close(fd);
    return Unavailable("lock " + path + ": cannot lock it: " + Why(e));
  }
  return FileLock(fd);
}

StatusOr<FileLock> FileLock::TakeOnFile(const std::string& path) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
      if (errno == ELOOP) return InvalidArgument(path + " is a symlink (refused: never written through a link)");
      if (errno == ENOENT) return NotFound(path + " does not exist");
      return Unavailable("cannot lock " + path + ": " + Why(errno));
    }
    struct stat held, now;
    if (fstat(fd, &held) != 0 || !S_ISREG(held.st_mode)) {
      close(fd);
      return InvalidArgument(path + " is not a regular file (refused)");
    }
    if (TakeFlock(fd) != 0) {
      const int e = errno;
      close(fd);
      return Unavailable("cannot lock " + path + ": " + Why(e));
    }
    if (lstat(path.c_str(), &now) == 0 && now.st_ino == held.st_ino && now.st_dev == held.st_dev) return FileLock(fd);
    close(fd);  // replaced while we waited: lock the file that is there now
  }
  return Unavailable("cannot lock " + path + ": it keeps being replaced");
}

FileLock::FileLock(FileLock&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
FileLock::~FileLock() {
  if (fd_ >= 0) close(fd_);
}

}  // namespace commbench
