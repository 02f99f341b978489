#include "lib/core/leftovers.h"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

namespace commbench {
namespace {

// When process `pid` started, in seconds since the epoch; nullopt when /proc does not say.
std::optional<double> StartTime(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return std::nullopt;
  const size_t close = line.rfind(')');  // the command name may hold spaces and parentheses
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(line.substr(close + 2));
  std::string field;
  unsigned long long start_ticks = 0;
  for (int i = 3; i <= 22 && fields >> field; ++i) {  // field 22: start time, clock ticks after boot
    if (i == 22) start_ticks = std::stoull(field);
  }
  if (start_ticks == 0) return std::nullopt;
  std::ifstream proc_stat("/proc/stat");
  for (std::string key; proc_stat >> key;) {
    if (key == "btime") {
      double boot = 0;
      proc_stat >> boot;
      return boot + static_cast<double>(start_ticks) / static_cast<double>(sysconf(_SC_CLK_TCK));
    }
    std::getline(proc_stat, line);
  }
  return std::nullopt;
}

bool OwnedByMe(const struct stat& st) { return st.st_uid == geteuid(); }

double MTime(const struct stat& st) { return st.st_mtim.tv_sec + st.st_mtim.tv_nsec * 1e-9; }

// Calls `f(name, pid)` for every entry of `dir` whose name `pid_of` recognises.
template <typename PidOf, typename F>
int ForEachLeftover(const std::string& dir, PidOf pid_of, F f) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return 0;
  int removed = 0;
  while (const dirent* e = readdir(d)) {
    const std::optional<pid_t> pid = pid_of(e->d_name);
    if (!pid || *pid == getpid()) continue;
    removed += f(dir + "/" + e->d_name, *pid);
  }
  closedir(d);
  return removed;
}

}  // namespace

std::optional<pid_t> LeftoverPid(std::string_view name, std::string_view prefix, bool at_start) {
  const size_t head =
      at_start ? (name.substr(0, prefix.size()) == prefix ? 0 : std::string_view::npos) : name.rfind(prefix);
  if (head == std::string_view::npos || prefix.empty()) return std::nullopt;
  std::string_view rest = name.substr(head + prefix.size());
  size_t digits = 0;
  while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digits]))) ++digits;
  if (digits == 0 || digits > 9 || rest.size() != digits + 7 || rest[digits] != '-') return std::nullopt;
  for (char c : rest.substr(digits + 1)) {
    if (!std::isalnum(static_cast<unsigned char>(c))) return std::nullopt;
  }
  const long pid = std::stol(std::string(rest.substr(0, digits)));
  if (pid <= 0) return std::nullopt;
  return static_cast<pid_t>(pid);
}

bool CreatorGone(pid_t pid, double mtime) {
  if (kill(pid, 0) != 0 && errno == ESRCH) return true;
  // The pid runs: the creator only if that process was already running when the entry last changed. A second
  // of slack for clock granularity; a reused pid has taken far longer than that to come round again.
  const std::optional<double> started = StartTime(pid);
  return started && *started > mtime + 1.0;
}

int RemoveLeftoverDirs(const std::string& dir, std::string_view prefix) {
  return ForEachLeftover(
      dir, [prefix](std::string_view name) { return LeftoverPid(name, prefix, true); },
      [](const std::string& path, pid_t pid) {
        struct stat st;
        if (lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || !OwnedByMe(st)) return 0;
        if (!CreatorGone(pid, MTime(st))) return 0;
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
        return ec ? 0 : 1;
      });
}

int RemoveLeftoverTempFiles(const std::string& dir) {
  return ForEachLeftover(
      dir, [](std::string_view name) { return LeftoverPid(name, ".tmp-", false); },
      [](const std::string& path, pid_t pid) {
        struct stat st;
        if (lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || !OwnedByMe(st)) return 0;
        if (!CreatorGone(pid, MTime(st))) return 0;
        return unlink(path.c_str()) == 0 ? 1 : 0;
      });
}

}  // namespace commbench
