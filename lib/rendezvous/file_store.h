// The file store: one file per key in a private directory. Our own rather than Gloo's FileStore, which follows
// the umask and symlinks: the directory is held open (O_NOFOLLOW) and must be a real directory owned by this
// user and writable by nobody else; key files are created 0600 (O_EXCL|O_NOFOLLOW) and linked into place, so a
// key is written once and a reader never sees half a value.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lib/core/status.h"
#include "lib/rendezvous/store.h"

namespace commbench {

// Opens `path` as a store directory: O_NOFOLLOW, owned by this user, not writable by group or others. With
// `create`, makes it first (mode 0700 whatever the umask) when it is not there. InvalidArgument names the path
// and why it is refused ("is a symlink", "is owned by uid 1001", "is writable by others (mode 0777)").
StatusOr<int> OpenPrivateDirectory(const std::string& path, bool create);
// The same checks on a directory already opened (O_NOFOLLOW); `made`: this process just created it, so its mode
// is set to 0700. Returns `fd`, or closes it and says why it is refused.
StatusOr<int> CheckPrivateDirectory(int fd, const std::string& path, bool made);

class FileStore : public Store {
 public:
  // Takes ownership of `dir_fd` (OpenPrivateDirectory); `path` is for messages.
  FileStore(int dir_fd, std::string path);
  ~FileStore() override;
  FileStore(const FileStore&) = delete;
  FileStore& operator=(const FileStore&) = delete;

  // Internal when the key is already set (keys are written once), or the file cannot be written.
  Status Set(const std::string& key, const std::vector<char>& value) override;
  StatusOr<std::vector<char>> Get(const std::string& key, std::chrono::milliseconds timeout) override;
  std::string Describe() const override { return "file:" + path_; }

  // Replaces `key`'s value (a record that changes: the run's owner). Same file modes.
  Status Replace(const std::string& key, const std::vector<char>& value);
  // Removes `key`; OK when it is not there.
  Status Erase(const std::string& key);
  // Seconds since `key` was last written or touched; NotFound when it is not there.
  StatusOr<double> Age(const std::string& key) const;
  // Marks `key` as written now (a heartbeat).
  Status Touch(const std::string& key);
  // Removes every file in the directory whose key does not start with `keep_prefix` and is not `keep_key`;
  // with both empty, every file. The number removed.
  int RemoveAllBut(const std::string& keep_prefix, const std::string& keep_key);
  // Removes every file whose key starts with `prefix`.
  int RemoveWithPrefix(const std::string& prefix);
  int dir_fd() const { return dir_fd_; }
  const std::string& path() const { return path_; }

 private:
  std::vector<std::string> FileNames() const;
  StatusOr<std::string> WriteTemporary(const std::string& name, const std::vector<char>& value);
  int dir_fd_;
  std::string path_;
};

// The file name of a key: [A-Za-z0-9._-] kept, every other byte %XX, a leading '.' too (temporary files start
// with '.'); long names end in a hash of the key.
std::string FileStoreName(const std::string& key);

}  // namespace commbench
