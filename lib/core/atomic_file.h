// Output files are written to a temporary file beside the target and renamed over it only when complete: a
// reader (or a crash) never sees half a file, a failed write leaves the previous file intact, and nothing but a
// regular file is ever replaced (a device such as /dev/full, a directory or a socket is refused; a symlink is
// followed, so its target is what gets written). A replaced file keeps its mode and owner. The temporary file is
// `TARGET.tmp-<pid>-XXXXXX`: those of a killed process are removed by the next Create in that directory.
#pragma once

#include <string>
#include <string_view>

#include "lib/core/status.h"

namespace commbench {

class AtomicFile {
 public:
  // Creates the temporary file (first removing those killed processes left in that directory), with the mode and
  // owner of the file it will replace, else 0666 less the umask. InvalidArgument when `path` names something other than
  // a regular file (or a symlink to one); Unavailable when its directory cannot be written.
  static StatusOr<AtomicFile> Create(const std::string& path);

  AtomicFile(AtomicFile&& other) noexcept;
  AtomicFile& operator=(AtomicFile&&) = delete;
  ~AtomicFile();  // removes the temporary file unless Commit succeeded

  Status Write(std::string_view bytes);
  // Flushes to disk and renames over the target.
  Status Commit();

  const std::string& path() const { return target_; }

 private:
  AtomicFile(std::string target, std::string tmp, int fd) : target_(std::move(target)), tmp_(std::move(tmp)), fd_(fd) {}
  Status Fail(const std::string& why);

  std::string target_;  // the regular file the rename replaces (a symlink's target)
  std::string tmp_;
  int fd_ = -1;
};

// OK when `path` could be written: it is a regular file or absent, and its directory is writable. Does not
// create anything; for failing before any work is done.
Status CheckWritableOutput(const std::string& path);

Status WriteFileAtomically(const std::string& path, std::string_view content);

// Summaries (--summary, $GITHUB_STEP_SUMMARY) are appended to, not replaced. OK when `path` could be appended
// to: a regular file (or a symlink to one) this user may write, or a path that does not exist yet in a writable
// directory. A directory, a FIFO, a device or a missing directory is InvalidArgument. Creates nothing.
Status CheckAppendableOutput(const std::string& path);
// Appends `text` and flushes it to disk; Unavailable (naming the path and why) when any of it could not be
// written, e.g. on a full disk. Never blocks on a FIFO.
Status AppendToFile(const std::string& path, std::string_view text);

}  // namespace commbench
