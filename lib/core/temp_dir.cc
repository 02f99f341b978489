#include "lib/core/temp_dir.h"

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <system_error>

#include "lib/core/leftovers.h"

namespace commbench {

TempDir::TempDir(const std::string& prefix, std::string parent) {
  if (parent.empty()) {
    const char* base = getenv("TMPDIR");
    parent = base && *base ? base : "/tmp";
  }
  RemoveLeftoverDirs(parent, prefix);  // those of killed runs: nothing else would ever remove them
  std::string tmpl = parent + "/" + prefix + std::to_string(getpid()) + "-XXXXXX";
  if (mkdtemp(tmpl.data())) path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  if (!path_.empty()) std::filesystem::remove_all(path_, ec);
}

}  // namespace commbench
