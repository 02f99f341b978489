// A private temporary directory (mkdtemp: mode 0700), removed with its contents when the object goes. Its name
// carries the creating pid, `<prefix><pid>-XXXXXX`: what a killed process (SIGKILL) could not remove, the next
// TempDir with the same prefix under the same parent removes (lib/core/leftovers.h).
#pragma once

#include <string>

namespace commbench {

class TempDir {
 public:
  // `<parent>/<prefix><pid>-XXXXXX`; parent "" means $TMPDIR, else /tmp. path() is "" when it could not be made.
  explicit TempDir(const std::string& prefix, std::string parent = "");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace commbench
