// A private temporary directory (mkdtemp: mode 0700), removed with its contents when the object goes.
#pragma once

#include <string>

namespace commbench {

class TempDir {
 public:
  // `<parent>/<prefix>XXXXXX`; parent "" means $TMPDIR, else /tmp. path() is "" when it could not be made.
  explicit TempDir(const std::string& prefix, std::string parent = "");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace commbench
