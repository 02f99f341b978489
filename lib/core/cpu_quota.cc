#include "lib/core/cpu_quota.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <vector>

#include "lib/core/text_file.h"

namespace commbench {
namespace {

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, sep)) out.push_back(part);
  return out;
}

bool HasToken(const std::string& list, const std::string& token) {
  for (const std::string& t : Split(list, ',')) {
    if (t == token) return true;
  }
  return false;
}

// A cgroup hierarchy mounted here: where, and which of its directories the mount shows at that place.
struct Mount {
  std::string root, point;
};

// mountinfo: "ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER_OPTIONS".
std::optional<Mount> FindMount(const std::string& mountinfo, bool v2) {
  std::istringstream lines(mountinfo);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::vector<std::string> f;
    for (std::string w; fields >> w;) f.push_back(w);
    size_t dash = 0;
    while (dash < f.size() && f[dash] != "-") ++dash;
    if (dash < 5 || dash + 3 > f.size()) continue;
    const std::string& type = f[dash + 1];
    if (v2 ? type == "cgroup2" : type == "cgroup" && dash + 3 < f.size() && HasToken(f[dash + 3], "cpu")) {
      return Mount{f[3], f[4]};
    }
  }
  return std::nullopt;
}

// /proc/self/cgroup: "ID:CONTROLLERS:PATH"; v2's line is "0::PATH".
std::optional<std::string> FindCgroupPath(const std::string& proc_cgroup, bool v2) {
  std::istringstream lines(proc_cgroup);
  std::string line;
  while (std::getline(lines, line)) {
    const size_t a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1);
    if (v2 ? line.compare(0, a, "0") == 0 && controllers.empty() : HasToken(controllers, "cpu")) {
      return line.substr(b + 1);
    }
  }
  return std::nullopt;
}

// One cgroup directory's limit; cpus 0 where it sets none.
CpuQuota DirectoryLimit(const std::string& dir, bool v2) {
  double quota = -1, period = 0;
  if (v2) {
    std::istringstream in(WholeFile(dir + "/cpu.max"));
    std::string q;
    if (!(in >> q >> period) || q == "max") return {};
    quota = std::atof(q.c_str());
  } else {
    quota = std::atof(WholeFile(dir + "/cpu.cfs_quota_us").c_str());
    period = std::atof(WholeFile(dir + "/cpu.cfs_period_us").c_str());
  }
  if (quota <= 0 || period <= 0) return {};
  return CpuQuota{quota / period, period * 1e-6, dir + "/cpu.stat"};
}

// The tightest limit from the process's own cgroup up to the top of the mount. The cgroup's path is relative to
// the hierarchy; the mount shows it from `root` down (a container sees its own cgroup as /).
CpuQuota QuotaInHierarchy(const Mount& m, std::string path, const std::string& prefix, bool v2) {
  const bool under_root =
      path.compare(0, m.root.size(), m.root) == 0 && (path.size() == m.root.size() || path[m.root.size()] == '/');
  if (m.root != "/" && under_root) path = path.substr(m.root.size());
  if (!path.empty() && path.back() == '/') path.pop_back();
  CpuQuota best;
  while (true) {
    const std::string dir = prefix + (m.point == "/" ? "" : m.point) + path;
    const CpuQuota limit = DirectoryLimit(dir, v2);
    if (limit.cpus > 0 && (best.cpus == 0 || limit.cpus < best.cpus)) best = limit;
    if (path.empty() || path == "/") break;
    path = path.substr(0, path.rfind('/'));
  }
  return best;
}

int64_t StatField(const std::string& text, const std::string& name, bool* found) {
  std::istringstream in(text);
  std::string key;
  long long value = 0;
  while (in >> key >> value) {
    if (key == name) {
      *found = true;
      return value;
    }
  }
  return 0;
}

}  // namespace

CpuQuota CpuQuotaFrom(const std::string& mountinfo, const std::string& proc_cgroup, const std::string& root) {
  CpuQuota best;
  for (bool v2 : {false, true}) {
    const auto mount = FindMount(mountinfo, v2);
    const auto path = FindCgroupPath(proc_cgroup, v2);
    if (!mount || !path) continue;
    const CpuQuota q = QuotaInHierarchy(*mount, *path, root, v2);
    if (q.cpus > 0 && (best.cpus == 0 || q.cpus < best.cpus)) best = q;
  }
  return best;
}

CpuQuota ReadCpuQuota() { return CpuQuotaFrom(WholeFile("/proc/self/mountinfo"), WholeFile("/proc/self/cgroup"), ""); }

std::optional<CpuThrottling> ParseCpuStat(const std::string& text) {
  bool has_periods = false, found = false;
  CpuThrottling t;
  t.periods = StatField(text, "nr_periods", &has_periods);
  if (!has_periods) return std::nullopt;
  t.throttled_periods = StatField(text, "nr_throttled", &found);
  return t;
}

std::optional<CpuThrottling> ReadCpuThrottling(const std::string& stat_path) {
  if (stat_path.empty()) return std::nullopt;
  return ParseCpuStat(WholeFile(stat_path));
}

std::string FormatCpus(double cpus) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3g", cpus);
  return std::string(buf) + (cpus <= 1 ? " CPU" : " CPUs");
}

}  // namespace commbench
