#include "lib/rendezvous/file_store.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "lib/core/store_dir.h"
#include "lib/rendezvous/redis_store.h"

namespace commbench {
namespace {

using Clock = std::chrono::steady_clock;

std::string Errno(int e) { return std::strerror(e); }

std::string Octal(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof(buf), "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

// Why this directory may not hold a store, or "".
std::string Untrusted(const struct stat& st) {
  if (!S_ISDIR(st.st_mode)) return "is not a directory";
  if (st.st_uid != geteuid()) {
    return "is owned by uid " + std::to_string(st.st_uid) + ", not this user (uid " + std::to_string(geteuid()) + ")";
  }
  if (st.st_mode & (S_IWGRP | S_IWOTH)) return "is writable by others (mode " + Octal(st.st_mode) + ")";
  return "";
}

bool ReadAll(int fd, std::vector<char>* out) {
  char buf[65536];
  while (true) {
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n == 0) return true;
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    out->insert(out->end(), buf, buf + n);
  }
}

bool WriteAll(int fd, const std::vector<char>& value) {
  size_t done = 0;
  while (done < value.size()) {
    const ssize_t n = write(fd, value.data() + done, value.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

// A store whose directory was refused: every call says why.
class RefusedStore : public Store {
 public:
  RefusedStore(std::string path, Status why) : path_(std::move(path)), why_(std::move(why)) {}
  Status Set(const std::string&, const std::vector<char>&) override { return why_; }
  StatusOr<std::vector<char>> Get(const std::string&, std::chrono::milliseconds) override { return why_; }
  std::string Describe() const override { return "file:" + path_; }

 private:
  std::string path_;
  Status why_;
};

}  // namespace

std::string FileStoreName(const std::string& key) {
  return EncodeStoreName(key, 200);  // NAME_MAX is 255
}

namespace {

Status Refused(const std::string& path, const std::string& why) {
  return InvalidArgument("store directory " + path + " " + why +
                         "; refused (a store directory must be a real directory of this user that nobody else may "
                         "write)");
}

}  // namespace

StatusOr<int> CheckPrivateDirectory(int fd, const std::string& path, bool made) {
  if (made) (void)fchmod(fd, 0700);  // the umask may have taken bits away (never added: 0700 is the most)
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const int e = errno;
    close(fd);
    return Internal("cannot read the store directory " + path + ": " + Errno(e));
  }
  const std::string why = Untrusted(st);
  if (!why.empty()) {
    close(fd);
    return Refused(path, why);
  }
  return fd;
}

StatusOr<int> OpenPrivateDirectory(const std::string& path, bool create) {
  bool made = false;
  if (create) {
    if (mkdir(path.c_str(), 0700) == 0) {
      made = true;
    } else if (errno != EEXIST) {
      return Internal("cannot create the store directory " + path + ": " + Errno(errno));
    }
  }
  const int fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    struct stat st;
    if (lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) return Refused(path, "is a symlink");
    if (e == ENOTDIR) return Refused(path, "is not a directory");
    return Internal("cannot open the store directory " + path + ": " + Errno(e));
  }
  return CheckPrivateDirectory(fd, path, made);
}

FileStore::FileStore(int dir_fd, std::string path) : dir_fd_(dir_fd), path_(std::move(path)) {}

FileStore::~FileStore() { close(dir_fd_); }

StatusOr<std::string> FileStore::WriteTemporary(const std::string& name, const std::vector<char>& value) {
  static std::atomic<uint64_t> counter{0};
  const std::string tmp =
      ".tmp-" + std::to_string(getpid()) + "-" + std::to_string(counter++) + "-" + name.substr(0, 64);
  const int fd = openat(dir_fd_, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return Internal("file store " + path_ + ": cannot create " + tmp + ": " + Errno(errno));
  const bool ok = fchmod(fd, 0600) == 0 && WriteAll(fd, value);
  const int e = errno;
  close(fd);
  if (!ok) {
    unlinkat(dir_fd_, tmp.c_str(), 0);
    return Internal("file store " + path_ + ": cannot write " + tmp + ": " + Errno(e));
  }
  return tmp;
}

Status FileStore::Set(const std::string& key, const std::vector<char>& value) {
  const std::string name = FileStoreName(key);
  ASSIGN_OR_RETURN(std::string tmp, WriteTemporary(name, value));
  // A hard link never replaces: the key is written once, atomically, and a second writer learns it.
  const int linked = linkat(dir_fd_, tmp.c_str(), dir_fd_, name.c_str(), 0);
  const int e = errno;
  unlinkat(dir_fd_, tmp.c_str(), 0);
  if (linked == 0) return OkStatus();
  if (e == EEXIST) return Internal("file store " + path_ + ": key '" + key + "' is already set");
  return Internal("file store " + path_ + ": cannot set '" + key + "': " + Errno(e));
}

Status FileStore::Replace(const std::string& key, const std::vector<char>& value) {
  const std::string name = FileStoreName(key);
  ASSIGN_OR_RETURN(std::string tmp, WriteTemporary(name, value));
  if (renameat(dir_fd_, tmp.c_str(), dir_fd_, name.c_str()) == 0) return OkStatus();
  const int e = errno;
  unlinkat(dir_fd_, tmp.c_str(), 0);
  return Internal("file store " + path_ + ": cannot set '" + key + "': " + Errno(e));
}

StatusOr<std::vector<char>> FileStore::Get(const std::string& key, std::chrono::milliseconds timeout) {
  const std::string name = FileStoreName(key);
  const auto deadline = Clock::now() + timeout;
  auto pause = std::chrono::milliseconds(1);
  while (true) {
    const int fd = openat(dir_fd_, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
      struct stat st;
      std::vector<char> value;
      const bool regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
      const bool ok = regular && ReadAll(fd, &value);
      close(fd);
      if (!regular) return InvalidArgument("file store " + path_ + ": " + name + " is not a regular file; refused");
      if (!ok) return Internal("file store " + path_ + ": cannot read '" + key + "'");
      return value;
    }
    if (errno == ELOOP) return InvalidArgument("file store " + path_ + ": " + name + " is a symlink; refused");
    if (errno != ENOENT) return Internal("file store " + path_ + ": cannot read '" + key + "': " + Errno(errno));
    const auto now = Clock::now();
    if (now >= deadline) {
      return DeadlineExceeded("file store " + path_ + ": key '" + key + "' did not appear within " +
                              std::to_string(timeout.count()) + " ms");
    }
    std::this_thread::sleep_for(std::min<Clock::duration>(pause, deadline - now));
    pause = std::min(pause * 2, std::chrono::milliseconds(10));
  }
}

Status FileStore::Erase(const std::string& key) {
  if (unlinkat(dir_fd_, FileStoreName(key).c_str(), 0) == 0 || errno == ENOENT) return OkStatus();
  return Internal("file store " + path_ + ": cannot remove '" + key + "': " + Errno(errno));
}

StatusOr<double> FileStore::Age(const std::string& key) const {
  struct stat st;
  if (fstatat(dir_fd_, FileStoreName(key).c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    return NotFound("file store " + path_ + ": no '" + key + "'");
  }
  timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<double>(now.tv_sec - st.st_mtim.tv_sec) + (now.tv_nsec - st.st_mtim.tv_nsec) * 1e-9;
}

Status FileStore::Touch(const std::string& key) {
  if (utimensat(dir_fd_, FileStoreName(key).c_str(), nullptr, AT_SYMLINK_NOFOLLOW) == 0) return OkStatus();
  return Internal("file store " + path_ + ": cannot touch '" + key + "': " + Errno(errno));
}

std::vector<std::string> FileStore::FileNames() const {
  std::vector<std::string> names;
  const int fd = dup(dir_fd_);
  if (fd < 0) return names;
  DIR* dir = fdopendir(fd);
  if (dir == nullptr) {
    close(fd);
    return names;
  }
  rewinddir(dir);
  while (dirent* e = readdir(dir)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  closedir(dir);
  return names;
}

int FileStore::RemoveAllBut(const std::string& keep_prefix, const std::string& keep_key) {
  const std::string prefix = keep_prefix.empty() ? "" : FileStoreName(keep_prefix);
  const std::string keep = keep_key.empty() ? "" : FileStoreName(keep_key);
  int removed = 0;
  for (const std::string& name : FileNames()) {
    if (!prefix.empty() && name.rfind(prefix, 0) == 0) continue;
    if (!keep.empty() && name == keep) continue;
    removed += unlinkat(dir_fd_, name.c_str(), 0) == 0;
  }
  return removed;
}

int FileStore::RemoveWithPrefix(const std::string& prefix) {
  const std::string encoded = FileStoreName(prefix);
  int removed = 0;
  for (const std::string& name : FileNames()) {
    if (name.rfind(encoded, 0) == 0) removed += unlinkat(dir_fd_, name.c_str(), 0) == 0;
  }
  return removed;
}

std::unique_ptr<Store> NewFileStore(const std::string& directory) {
  auto fd = OpenPrivateDirectory(directory, false);
  if (!fd.ok()) return std::make_unique<RefusedStore>(directory, fd.status());
  return std::make_unique<FileStore>(*fd, directory);
}

StatusOr<std::unique_ptr<Store>> OpenStore(const std::string& url) {
  if (url.rfind("file:", 0) == 0) {
    const std::string dir = url.substr(5);
    ASSIGN_OR_RETURN(int fd, OpenPrivateDirectory(dir, false));
    return std::unique_ptr<Store>(std::make_unique<FileStore>(fd, dir));
  }
  if (url.rfind("redis://", 0) == 0) {
    ASSIGN_OR_RETURN(RedisAddress address, ParseRedisUrl(url, std::getenv(kRedisPasswordVariable)));
    ASSIGN_OR_RETURN(std::unique_ptr<RedisStore> store, RedisStore::Connect(address, std::chrono::seconds(10)));
    return std::unique_ptr<Store>(std::move(store));
  }
  return InvalidArgument(
      "--rendezvous: unsupported store '" + RedactStoreUrl(url) +
      "' (accepted: file:/shared/dir, redis://HOST[:PORT][/DB], a user and password before HOST as in any URL)");
}

}  // namespace commbench
