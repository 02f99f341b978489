#include "lib/core/output_paths.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

namespace commbench {
namespace {

std::string Canonical(const std::string& path) {
  char buf[PATH_MAX];
  return realpath(path.c_str(), buf) != nullptr ? std::string(buf) : std::string();
}

}  // namespace

std::string ResolvedPath(const std::string& path) {
  if (path.empty()) return "";
  std::string current = path;
  for (int hops = 0; hops < 40; ++hops) {
    if (std::string c = Canonical(current); !c.empty()) return c;
    // Absent (or a dangling link): resolve the directory, keep the name; follow a dangling link's target.
    struct stat st;
    const size_t slash = current.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : current.substr(0, slash);
    const std::string base = slash == std::string::npos ? current : current.substr(slash + 1);
    if (lstat(current.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
      char buf[PATH_MAX];
      const ssize_t n = readlink(current.c_str(), buf, sizeof(buf) - 1);
      if (n <= 0) return "";
      const std::string target(buf, static_cast<size_t>(n));
      current = target.front() == '/' ? target : dir + "/" + target;
      continue;
    }
    const std::string d = dir == current ? "" : ResolvedPath(dir);  // a directory still to be made, too
    if (d.empty() || base.empty() || base == "." || base == "..") return "";
    return (d == "/" ? "" : d) + "/" + base;
  }
  return "";
}

Status CheckOutputsApart(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs,
                         const std::vector<NamedPath>& store_dirs) {
  struct Seen {
    const NamedPath* named;
    std::string resolved;
    bool output;
  };
  std::vector<Seen> seen;
  for (const NamedPath& in : inputs) {
    if (!in.path.empty()) seen.push_back({&in, ResolvedPath(in.path), false});
  }
  for (const NamedPath& out : outputs) {
    if (out.path.empty()) continue;
    const std::string resolved = ResolvedPath(out.path);
    struct stat out_st;
    const bool out_exists = stat(out.path.c_str(), &out_st) == 0;
    const auto same = [&](const Seen& s) {
      struct stat st;  // a hard link is another path to the same file
      if (out_exists && stat(s.named->path.c_str(), &st) == 0 && st.st_dev == out_st.st_dev &&
          st.st_ino == out_st.st_ino) {
        return true;
      }
      return s.resolved.empty() || resolved.empty() ? s.named->path == out.path : s.resolved == resolved;
    };
    for (const Seen& s : seen) {
      if (!same(s)) continue;
      return InvalidArgument(out.flag + " " + out.path + " is also " + (s.output ? "the output " : "") + s.named->flag +
                             " " + s.named->path +
                             " (accepted: an output path that is none of the command's inputs or other outputs)");
    }
    for (const NamedPath& store : store_dirs) {
      if (store.path.empty()) continue;
      const std::string dir = ResolvedPath(store.path);
      if (!dir.empty() && !resolved.empty() && resolved.compare(0, dir.size() + 1, dir + "/") == 0) {
        return InvalidArgument(out.flag + " " + out.path + " lies inside " + store.flag + " " + store.path +
                               " (accepted: an output outside the store, which only commbench writes)");
      }
    }
    seen.push_back({&out, resolved, true});
  }
  return OkStatus();
}

}  // namespace commbench
