// A store is a directory commbench keeps state in across runs (a performance history, a host-peak cache), often
// restored from a CI cache or shared with other jobs, and commbench often runs as root. So nothing in a store is
// written through a path: the directory is opened once (never through a symlink, and only when it is a real
// directory of this user that nobody else may write), and every file is created or replaced with openat under that
// descriptor, O_NOFOLLOW and O_EXCL. A link planted at a file's name is an error, never a write elsewhere.
// Names are single path components that commbench encodes itself (EncodeStoreName): no separator, no "..", no
// control character.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "lib/core/status.h"

namespace commbench {

// `text` as one file-name component: letters, digits, '-' and '_' kept, '.' kept except at the start, every
// other byte (separators, controls, non-ASCII) as %XX; at most `max_length` characters (a longer name keeps its
// head and ends with a hash of the whole, so distinct texts stay distinct). Never empty, ".", or "..".
std::string EncodeStoreName(std::string_view text, size_t max_length = 80);

class StoreDir {
 public:
  // Opens `path` as a store (creating it, 0755 less the umask, when `create` and it is absent; its parent must
  // exist). InvalidArgument naming the path and why when it is a symlink, not a directory, owned by another
  // user, or writable by others.
  static StatusOr<StoreDir> Open(const std::string& path, bool create);
  // A directory inside this one, opened as Open does (created when `create`).
  StatusOr<StoreDir> Subdir(const std::string& name, bool create) const;

  StoreDir(StoreDir&& other) noexcept;
  StoreDir& operator=(StoreDir&& other) noexcept;
  StoreDir(const StoreDir&) = delete;
  ~StoreDir();

  // Writes `content` to a new temporary file and renames it over `name`, which must be absent or a regular file
  // (its mode is kept). A symlink or anything else at `name` is InvalidArgument and nothing is replaced.
  Status Replace(const std::string& name, std::string_view content) const;
  // Writes `content` as `name` only when nothing is there yet (atomically: a reader sees all of it or nothing).
  // AlreadyExists is reported as InvalidArgument whose message says "already exists".
  Status CreateNew(const std::string& name, std::string_view content) const;
  // The regular file `name` (never through a link), bounded as ReadDataFile bounds; NotFound when absent.
  StatusOr<std::string> Read(const std::string& name, size_t max_bytes, std::string_view what = "file") const;
  bool Exists(const std::string& name) const;
  // The names of the regular files in this directory (not "." or ".."), in no order.
  StatusOr<std::vector<std::string>> ListFiles() const;

  // Holds an exclusive flock on a lock file in this directory (created O_NOFOLLOW) for its lifetime.
  class Lock {
   public:
    Lock(Lock&& o) noexcept;
    Lock& operator=(Lock&&) = delete;
    ~Lock();

   private:
    friend class StoreDir;
    explicit Lock(int fd) : fd_(fd) {}
    int fd_;
  };
  StatusOr<Lock> TakeLock(const std::string& name) const;

  const std::string& path() const { return path_; }
  int fd() const { return fd_; }

 private:
  friend Status ReplaceStoreFile(const std::string& path, std::string_view content);
  StoreDir(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  StatusOr<std::string> WriteTemporary(const std::string& name, std::string_view content, unsigned mode) const;
  int fd_ = -1;
  std::string path_;
};

// For a store that is one file given by the user (a gate baseline, a calibration): written to a temporary file
// beside it and renamed over it, but never through a symlink at `path` (InvalidArgument), and only over a regular
// file. Its mode is kept.
Status ReplaceStoreFile(const std::string& path, std::string_view content);

// OK when ReplaceStoreFile(path) could write: nothing or a regular file at `path` (never a link) in a writable
// directory. For failing before any work is done.
Status CheckStoreFileTarget(const std::string& path);

// Holds an exclusive flock on `path` (created O_NOFOLLOW, a planted link refused) for its lifetime: for the
// read-modify-write of a one-file store such as a baseline's calibration.
class FileLock {
 public:
  static StatusOr<FileLock> Take(const std::string& path);
  // Locks the existing regular file `path` itself (never through a link), so that no lock file is left beside
  // it; a writer that replaced it by rename meanwhile is noticed and the new file locked instead.
  static StatusOr<FileLock> TakeOnFile(const std::string& path);
  FileLock(FileLock&& o) noexcept;
  FileLock& operator=(FileLock&&) = delete;
  ~FileLock();

 private:
  explicit FileLock(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace commbench
