#include "lib/measure/host_load_monitor.h"

#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include "lib/core/text_file.h"

namespace commbench {
namespace {

int64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

double ThreadCpuS() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double SecondsPerTick() {
  static const double s = 1.0 / static_cast<double>(std::max(sysconf(_SC_CLK_TCK), 1L));
  return s;
}

std::vector<int> Pids() {
  std::vector<int> pids;
  DIR* dir = opendir("/proc");
  if (!dir) return pids;
  while (dirent* e = readdir(dir)) {
    char* end = nullptr;
    long pid = std::strtol(e->d_name, &end, 10);
    if (end != e->d_name && *end == '\0' && pid > 0) pids.push_back(static_cast<int>(pid));
  }
  closedir(dir);
  return pids;
}

// Processes of the run: `root` and every process whose chain of parents reaches it.
std::set<int> RunProcesses(int root, const std::map<int, ProcessTicks>& all) {
  std::set<int> own = {root}, outside;
  for (const auto& [pid, p] : all) {
    std::vector<int> chain;
    int at = pid;
    for (int depth = 0; depth < 64 && at > 0; ++depth) {
      if (own.count(at)) {
        own.insert(chain.begin(), chain.end());
        chain.clear();
        break;
      }
      if (outside.count(at)) break;
      chain.push_back(at);
      auto it = all.find(at);
      at = it == all.end() ? 0 : it->second.ppid;
    }
    outside.insert(chain.begin(), chain.end());
  }
  return own;
}

}  // namespace

std::vector<CpuTicks> ParseProcStat(const std::string& text) {
  std::vector<CpuTicks> cpus;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("cpu", 0) != 0 || line.size() < 4 || line[3] < '0' || line[3] > '9') continue;
    std::istringstream fields(line.substr(3));
    CpuTicks c;
    uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    if (!(fields >> c.cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq)) continue;
    fields >> steal;  // absent on old kernels
    c.busy = user + nice + system + irq + softirq + steal;
    c.task = user + nice + system;
    cpus.push_back(c);
  }
  return cpus;
}

std::optional<ProcessTicks> ParseProcessStat(const std::string& text) {
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so it ends at the last ')'.
  const size_t open = text.find('('), close = text.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return std::nullopt;
  ProcessTicks p;
  p.pid = std::atoi(text.c_str());
  p.comm = text.substr(open + 1, close - open - 1);
  std::istringstream rest(text.substr(close + 1));
  std::vector<std::string> f;  // f[0] is field 3 (state) of proc(5)
  for (std::string token; rest >> token;) f.push_back(token);
  if (f.size() < 37 || p.pid <= 0) return std::nullopt;
  p.ppid = std::atoi(f[1].c_str());
  p.ticks = std::strtoull(f[11].c_str(), nullptr, 10) + std::strtoull(f[12].c_str(), nullptr, 10);
  p.child_ticks = std::strtoull(f[13].c_str(), nullptr, 10) + std::strtoull(f[14].c_str(), nullptr, 10);
  p.starttime = std::strtoull(f[19].c_str(), nullptr, 10);
  p.processor = std::atoi(f[36].c_str());
  return p;
}

double UnattributedFloorS(size_t cpus, double window_s) {
  return SecondsPerTick() * static_cast<double>(cpus) * (3 + window_s);
}

result::HostLoad LoadOver(const std::vector<LoadInterval>& intervals, const std::vector<int>& cpu_ids, int64_t start_ns,
                          int64_t end_ns, double ranks_cpu_s) {
  result::HostLoad h;
  h.window_s = static_cast<double>(std::max<int64_t>(end_ns - start_ns, 0)) * 1e-9;
  h.ranks_cpu_s = ranks_cpu_s;
  for (int id : cpu_ids) h.per_cpu.push_back({id, 0, 0});
  std::map<int, result::OutsideProcess> outside;
  std::map<int, std::set<int>> outside_cpus;
  std::map<int, std::map<int, double>> by_cpu;  // cpu -> pid -> CPU seconds there
  std::vector<double> task(cpu_ids.size(), 0), own(cpu_ids.size(), 0);
  for (const LoadInterval& in : intervals) {
    const int64_t overlap = std::min(in.t1_ns, end_ns) - std::max(in.t0_ns, start_ns);
    if (overlap <= 0 || in.t1_ns <= in.t0_ns) continue;
    const double share = static_cast<double>(overlap) / static_cast<double>(in.t1_ns - in.t0_ns);
    for (size_t c = 0; c < in.cpu_busy_s.size() && c < h.per_cpu.size(); ++c) {
      h.per_cpu[c].busy_s += share * in.cpu_busy_s[c];
      h.cpu_busy_s += share * in.cpu_busy_s[c];
    }
    for (size_t c = 0; c < in.cpu_task_s.size() && c < task.size(); ++c) task[c] += share * in.cpu_task_s[c];
    for (size_t c = 0; c < in.own_by_cpu.size() && c < own.size(); ++c) own[c] += share * in.own_by_cpu[c];
    h.own_cpu_s += share * in.own_s;
    h.monitor_cpu_s += share * in.monitor_s;
    for (const ProcessUse& u : in.outside) {
      result::OutsideProcess& p = outside[u.pid];
      p.pid = u.pid;
      p.comm = u.comm;
      p.cpu_s += share * u.cpu_s;
      p.children_cpu_s += share * u.children_s;
      h.outside_cpu_s += share * u.cpu_s;
      if (u.cpu < 0) continue;
      outside_cpus[u.pid].insert(u.cpu);
      by_cpu[u.cpu][u.pid] += share * u.cpu_s;
      for (result::CpuLoad& c : h.per_cpu) {
        if (c.cpu == u.cpu) c.outside_s += share * u.cpu_s;
      }
    }
  }
  for (auto& [pid, p] : outside) {
    p.cpus.assign(outside_cpus[pid].begin(), outside_cpus[pid].end());
    h.top.push_back(std::move(p));
  }
  std::sort(h.top.begin(), h.top.end(), [](const auto& a, const auto& b) { return a.cpu_s > b.cpu_s; });
  // The largest overall, and the largest on each CPU: ranks restricted to one CPU are disturbed by what ran
  // there, even when busier processes ran elsewhere.
  std::set<int> keep;
  for (size_t i = 0; i < h.top.size() && i < result::kMaxTopProcesses; ++i) keep.insert(h.top[i].pid);
  for (const auto& [cpu, pids] : by_cpu) {
    keep.insert(std::max_element(pids.begin(), pids.end(), [](const auto& a, const auto& b) {
                  return a.second < b.second;
                })->first);
  }
  h.top.erase(std::remove_if(h.top.begin(), h.top.end(), [&](const auto& p) { return !keep.count(p.pid); }),
              h.top.end());
  // What the CPUs' task time holds beyond the run's and the named processes': work too brief for two samples.
  double task_s = 0, unexplained_s = 0;
  std::vector<double> unexplained(task.size(), 0);
  for (size_t c = 0; c < task.size(); ++c) {
    task_s += task[c];
    unexplained[c] = std::max(0.0, task[c] - own[c] - (c < h.per_cpu.size() ? h.per_cpu[c].outside_s : 0));
    unexplained_s += unexplained[c];
  }
  const double run_s = std::max(h.own_cpu_s, ranks_cpu_s + h.monitor_cpu_s);
  const double rest = task_s - run_s - h.outside_cpu_s;
  if (rest > UnattributedFloorS(cpu_ids.size(), h.window_s)) {
    h.unattributed_cpu_s = rest;
    h.outside_cpu_s += rest;
    for (size_t c = 0; c < h.per_cpu.size() && c < unexplained.size(); ++c) {
      const double part =
          unexplained_s > 0 ? rest * unexplained[c] / unexplained_s : rest / static_cast<double>(h.per_cpu.size());
      h.per_cpu[c].unattributed_s = part;
      h.per_cpu[c].outside_s += part;
    }
  }
  const double cpus = static_cast<double>(std::max<size_t>(cpu_ids.size(), 1));
  h.outside_share = h.window_s > 0 ? h.outside_cpu_s / (h.window_s * cpus) : 0;
  return h;
}

HostLoadMonitor::HostLoadMonitor() : HostLoadMonitor(Options{}) {}

HostLoadMonitor::HostLoadMonitor(const Options& options) : options_(options) {
  if (options_.root <= 0) options_.root = getpid();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    SampleLocked();  // the baseline
  }
  if (ok_) thread_ = std::thread([this] { Loop(); });
}

HostLoadMonitor::~HostLoadMonitor() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void HostLoadMonitor::Loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, options_.period, [this] { return stop_; })) SampleLocked();
}

void HostLoadMonitor::SampleLocked() {
  const double cost_start = ThreadCpuS();
  const std::vector<CpuTicks> cpus = ParseProcStat(WholeFile("/proc/stat"));
  if (cpus.empty()) {
    ok_ = false;
    return;
  }
  std::map<int, ProcessTicks> processes;
  for (int pid : Pids()) {
    auto p = ParseProcessStat(WholeFile("/proc/" + std::to_string(pid) + "/stat"));
    if (p) processes[pid] = std::move(*p);  // a process that exited meanwhile is simply not there
  }
  const int64_t now = MonotonicNs();
  const bool first = last_ns_ == 0;
  LoadInterval interval;
  interval.t0_ns = last_ns_;
  interval.t1_ns = now;
  const double tick = SecondsPerTick();
  if (first) {
    for (const CpuTicks& c : cpus) cpu_ids_.push_back(c.cpu);
    last_cpu_busy_.assign(cpus.size(), 0);
    last_cpu_task_.assign(cpus.size(), 0);
  }
  for (size_t c = 0; c < cpus.size() && c < cpu_ids_.size(); ++c) {
    if (!first) interval.cpu_busy_s.push_back(tick * static_cast<double>(cpus[c].busy - last_cpu_busy_[c]));
    last_cpu_busy_[c] = cpus[c].busy;
  }
  for (size_t c = 0; c < cpus.size() && c < cpu_ids_.size(); ++c) {
    if (!first) interval.cpu_task_s.push_back(tick * static_cast<double>(cpus[c].task - last_cpu_task_[c]));
    last_cpu_task_[c] = cpus[c].task;
  }
  interval.own_by_cpu.assign(interval.cpu_busy_s.size(), 0);
  // Processes gone since the last sample: their parent's cutime + cstime took their whole time when it reaped them,
  // of which the samples already counted what they had used by the last one.
  // A gone process took with it the gone children it reaped since the last sample (a compiler driver and its cc1plus
  // that end together): what the samples counted of them reaches its parent's cutime through it.
  std::map<int, std::vector<int>> gone_children;  // parent pid -> its gone children
  std::vector<int> gone;
  for (const auto& [pid, was] : last_processes_) {
    auto now_there = processes.find(pid);
    if (now_there != processes.end() && now_there->second.starttime == was.starttime) continue;
    gone.push_back(pid);
    gone_children[was.ppid].push_back(pid);
  }
  std::map<int, uint64_t> counted_of;  // gone pid -> ticks of it and its gone descendants already counted
  std::function<uint64_t(int, int)> counted = [&](int pid, int depth) -> uint64_t {
    auto memo = counted_of.find(pid);
    if (memo != counted_of.end()) return memo->second;
    const Seen& was = last_processes_.at(pid);
    uint64_t sum = was.ticks + was.child_ticks;
    auto kids = gone_children.find(pid);
    if (kids != gone_children.end() && depth < 64) {
      for (int kid : kids->second) sum += counted(kid, depth + 1);
    }
    return counted_of[pid] = sum;
  };
  std::map<int, uint64_t> reaped_seen;  // live parent pid -> ticks of its gone children already counted
  for (int pid : gone) {
    const int parent = last_processes_.at(pid).ppid;
    if (processes.count(parent)) reaped_seen[parent] += counted(pid, 0);
  }
  const std::set<int> own = RunProcesses(options_.root, processes);
  std::map<int, Seen> seen;
  for (const auto& [pid, p] : processes) {
    seen[pid] = {p.ticks, p.child_ticks, p.starttime, p.ppid};
    if (first) continue;
    auto before = last_processes_.find(pid);
    // A process born since the last sample (or a new holder of a reused pid) used all its ticks since then.
    const bool same = before != last_processes_.end() && before->second.starttime == p.starttime;
    const uint64_t from = same ? std::min(before->second.ticks, p.ticks) : 0;
    const uint64_t from_children = same ? std::min(before->second.child_ticks, p.child_ticks) : 0;
    const uint64_t counted = reaped_seen.count(pid) ? reaped_seen[pid] : 0;
    const uint64_t reaped = p.child_ticks - from_children;
    const double children = tick * static_cast<double>(reaped > counted ? reaped - counted : 0);
    const double used = tick * static_cast<double>(p.ticks - from) + children;
    if (used <= 0) continue;
    if (own.count(pid)) {
      interval.own_s += used;
      for (size_t c = 0; c < cpu_ids_.size() && c < interval.own_by_cpu.size(); ++c) {
        if (cpu_ids_[c] == p.processor) interval.own_by_cpu[c] += used;
      }
    } else {
      interval.outside.push_back({pid, p.comm, used, p.processor, children});
    }
  }
  last_processes_ = std::move(seen);
  last_ns_ = now;
  pending_monitor_s_ += ThreadCpuS() - cost_start;
  if (first) return;
  interval.monitor_s = pending_monitor_s_;
  pending_monitor_s_ = 0;
  intervals_.push_back(std::move(interval));
}

std::optional<result::HostLoad> HostLoadMonitor::LoadDuring(int64_t start_ns, int64_t end_ns, double ranks_cpu_s) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!ok_ || end_ns <= start_ns) return std::nullopt;
  if (last_ns_ < end_ns) SampleLocked();
  // Later points start later: what ended long before this window is not asked for again.
  const int64_t keep_from = start_ns - std::chrono::duration_cast<std::chrono::nanoseconds>(options_.keep).count();
  intervals_.erase(intervals_.begin(), std::find_if(intervals_.begin(), intervals_.end(),
                                                    [&](const LoadInterval& i) { return i.t1_ns >= keep_from; }));
  return LoadOver(intervals_, cpu_ids_, start_ns, end_ns, ranks_cpu_s);
}

std::optional<result::HostLoad> HostLoadMonitor::LoadDuring(const std::vector<result::RankSamples>& ranks) {
  if (ranks.empty()) return std::nullopt;
  int64_t start = INT64_MAX, end = INT64_MIN;
  double cpu = 0;
  for (const result::RankSamples& r : ranks) {
    start = std::min(start, r.start_ns);
    end = std::max(end, r.end_ns);
    cpu += r.cpu_user_s + r.cpu_sys_s;
  }
  return LoadDuring(start, end, cpu);
}

}  // namespace commbench
