#include "lib/measure/host_load_monitor.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

namespace commbench {
namespace {

TEST(ParseProcStat, ReadsPerCpuBusyTicksAndSkipsTheTotal) {
  const std::string text =
      "cpu  100 0 50 1000 10 0 0 0 0 0\n"
      "cpu0 60 1 30 500 5 2 3 4 0 0\n"
      "cpu1 40 0 20 500 5 0 0\n"
      "intr 12345\n";
  auto cpus = ParseProcStat(text);
  ASSERT_EQ(cpus.size(), 2u);
  EXPECT_EQ(cpus[0].cpu, 0);
  EXPECT_EQ(cpus[0].busy, 60u + 1 + 30 + 2 + 3 + 4);  // idle and iowait are not busy
  EXPECT_EQ(cpus[0].task, 60u + 1 + 30);              // irq, softirq and steal are no process's
  EXPECT_EQ(cpus[1].cpu, 1);
  EXPECT_EQ(cpus[1].busy, 60u);  // no steal column
}

TEST(ParseProcessStat, CommMayHoldSpacesAndParentheses) {
  // Fields of proc(5): utime 14, stime 15, starttime 22, processor 39.
  std::string text = "4242 (my (odd) proc) R 17";
  for (int field = 5; field <= 52; ++field) {
    int v = field == 14   ? 300
            : field == 15 ? 45
            : field == 16 ? 70
            : field == 17 ? 5
            : field == 22 ? 9999
            : field == 39 ? 1
                          : 0;
    text += " " + std::to_string(v);
  }
  auto p = ParseProcessStat(text + "\n");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->pid, 4242);
  EXPECT_EQ(p->ppid, 17);
  EXPECT_EQ(p->comm, "my (odd) proc");
  EXPECT_EQ(p->ticks, 345u);
  EXPECT_EQ(p->child_ticks, 75u);  // cutime + cstime: the children it reaped
  EXPECT_EQ(p->starttime, 9999u);
  EXPECT_EQ(p->processor, 1);
  EXPECT_FALSE(ParseProcessStat("4242 (truncated) R 17 0 0").has_value());
}

TEST(LoadOver, CountsEachIntervalByItsOverlapWithTheWindow) {
  LoadInterval a{0, 100, {0.10, 0.02}, 0.04, 0.002, {{77, "spin", 0.08, 0}, {5, "kworker", 0.01, 1}}};
  LoadInterval b{100, 200, {0.10, 0.00}, 0.02, 0.002, {{77, "spin", 0.10, 1}}};
  LoadInterval later{200, 300, {0.10, 0.10}, 0.0, 0.0, {{99, "late", 0.1, 0}}};
  // The window takes the second half of a, all of b and none of `later`.
  result::HostLoad h = LoadOver({a, b, later}, {0, 1}, 50, 200, 0.03);
  EXPECT_DOUBLE_EQ(h.window_s, 150e-9);
  EXPECT_NEAR(h.cpu_busy_s, 0.5 * 0.12 + 0.10, 1e-12);
  EXPECT_NEAR(h.own_cpu_s, 0.5 * 0.04 + 0.02, 1e-12);
  EXPECT_NEAR(h.monitor_cpu_s, 0.003, 1e-12);
  EXPECT_NEAR(h.outside_cpu_s, 0.5 * 0.09 + 0.10, 1e-12);
  EXPECT_DOUBLE_EQ(h.ranks_cpu_s, 0.03);
  ASSERT_EQ(h.top.size(), 2u);  // the one outside the window is not named
  EXPECT_EQ(h.top[0].pid, 77);
  EXPECT_EQ(h.top[0].comm, "spin");
  EXPECT_NEAR(h.top[0].cpu_s, 0.14, 1e-12);
  EXPECT_EQ(h.top[0].cpus, (std::vector<int>{0, 1}));
  EXPECT_EQ(h.top[1].pid, 5);
  ASSERT_EQ(h.per_cpu.size(), 2u);
  EXPECT_NEAR(h.per_cpu[0].outside_s, 0.04, 1e-12);
  EXPECT_NEAR(h.per_cpu[1].outside_s, 0.005 + 0.10, 1e-12);
  EXPECT_NEAR(h.outside_share, h.outside_cpu_s / (150e-9 * 2), 1e-3);
}

TEST(LoadOver, KeepsTheLargestProcessOfEachCpuBeyondTheTopFive) {
  LoadInterval busy{0, 100, {0.1, 0.1}, 0, 0, {}};
  for (int pid = 10; pid < 17; ++pid) busy.outside.push_back({pid, "cc1plus", 0.01 * pid, 1});
  busy.outside.push_back({99, "spin", 0.05, 0});  // smaller than all seven on CPU 1
  result::HostLoad h = LoadOver({busy}, {0, 1}, 0, 100, 0);
  ASSERT_EQ(h.top.size(), result::kMaxTopProcesses + 1);
  EXPECT_EQ(h.top.front().pid, 16);
  EXPECT_EQ(h.top.back().pid, 99);
  EXPECT_EQ(h.top.back().cpus, std::vector<int>{0});
}

// The CPUs' task time beyond the run's and the named processes' is outside load no sample could name; it goes to
// the CPUs where nothing named explains their time, and under the clock-tick floor it is noise.
TEST(LoadOver, CountsTaskTimeNoSampleNamedAsUnattributed) {
  // 0.3 s of task time on CPU 0 and 0.1 s on CPU 1; the run 0.1 s (on CPU 1), a named process 0.05 s on CPU 0.
  LoadInterval in{0, 1000000000, {0.31, 0.1}, 0.1, 0.002, {{42, "bash", 0.05, 0, 0.04}}, {0.3, 0.1}, {0, 0.1}};
  result::HostLoad h = LoadOver({in}, {0, 1}, 0, 1000000000, 0.09);
  EXPECT_NEAR(h.unattributed_cpu_s, 0.4 - 0.1 - 0.05, 1e-9);
  EXPECT_NEAR(h.outside_cpu_s, 0.4 - 0.1, 1e-9);  // the named one and the rest
  EXPECT_NEAR(h.per_cpu[0].unattributed_s, 0.25, 1e-9);
  EXPECT_NEAR(h.per_cpu[0].outside_s, 0.30, 1e-9);
  EXPECT_NEAR(h.per_cpu[1].unattributed_s, 0, 1e-9);
  ASSERT_EQ(h.top.size(), 1u);
  EXPECT_NEAR(h.top[0].children_cpu_s, 0.04, 1e-9);
  EXPECT_NEAR(h.ShortLivedCpuS(), 0.25 + 0.04, 1e-9);
  // The ranks' rusage says the run took more than /proc saw of it (a rank that exited between samples): the
  // larger counts, and the rest shrinks by the difference.
  EXPECT_NEAR(LoadOver({in}, {0, 1}, 0, 1000000000, 0.2).unattributed_cpu_s, 0.4 - 0.2 - 0.002 - 0.05, 1e-9);
  // A remainder inside the floor (3 ticks per CPU plus one per CPU per second of window) is not load.
  LoadInterval quiet = in;
  quiet.cpu_task_s = {0.05 + UnattributedFloorS(2, 1.0) / 2, 0.1};
  EXPECT_EQ(LoadOver({quiet}, {0, 1}, 0, 1000000000, 0.09).unattributed_cpu_s, 0);
  EXPECT_GT(UnattributedFloorS(2, 1.0), 0.05);
  EXPECT_LT(UnattributedFloorS(2, 1.0), 0.1);
}

// A child process that spins until killed; killed and reaped by pid when the guard goes, also on failure.
class Spinner {
 public:
  // With `grandchild`, the child forks the spinner and waits: the spinner is then a descendant of the child.
  explicit Spinner(bool grandchild = false) {
    pid_ = fork();
    if (pid_ == 0) {
      if (grandchild) {
        pid_t spin = fork();
        if (spin == 0) Spin();
        waitpid(spin, nullptr, 0);
        _exit(0);
      }
      Spin();
    }
  }
  ~Spinner() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  pid_t pid() const { return pid_; }

 private:
  [[noreturn]] static void Spin() {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlives the test
    for (volatile uint64_t i = 0;; ++i) {
    }
  }
  pid_t pid_ = -1;
};

// A real spinning process outside the run is named with about the CPU time it took; the run's own processes
// (the root and what it spawned, here a spinning grandchild) are not.
int64_t NowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// The process's own CPU seconds, read directly: the truth the monitor's figure is checked against.
double CpuSecondsOf(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(in, line);
  auto p = ParseProcessStat(line);
  return p ? static_cast<double>(p->ticks) / static_cast<double>(sysconf(_SC_CLK_TCK)) : -1;
}

// The first process whose parent is `parent` (-1 when none).
pid_t ChildOf(pid_t parent) {
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    std::ifstream in(entry.path() / "stat");
    std::string line;
    if (!std::getline(in, line)) continue;
    auto p = ParseProcessStat(line);
    if (p && p->ppid == parent) return p->pid;
  }
  return -1;
}

TEST(HostLoadMonitor, NamesASpinningProcessOutsideTheRunAndNotTheRunsOwn) {
  Spinner run(/*grandchild=*/true);  // stands for the driver and a rank it spawned
  Spinner outside;
  HostLoadMonitor::Options options;
  options.root = run.pid();
  HostLoadMonitor monitor(options);
  pid_t rank = -1;  // the run's spinning grandchild
  for (int i = 0; i < 100 && rank < 0; ++i, std::this_thread::sleep_for(std::chrono::milliseconds(10))) {
    rank = ChildOf(run.pid());
  }
  ASSERT_GT(rank, 0);
  const double spin_before = CpuSecondsOf(outside.pid()), rank_before = CpuSecondsOf(rank);
  const int64_t start = NowNs();
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  const int64_t end = NowNs();
  const double spin_s = CpuSecondsOf(outside.pid()) - spin_before, rank_s = CpuSecondsOf(rank) - rank_before;
  auto h = monitor.LoadDuring(start, end, 0);
  ASSERT_TRUE(h.has_value());
  for (const auto& p : h->top) EXPECT_NE(p.pid, run.pid());  // the run's own are never outside
  for (const auto& p : h->top) EXPECT_NE(p.pid, rank);
  EXPECT_NEAR(h->own_cpu_s, rank_s, 0.05 + 0.2 * rank_s);  // its spinning grandchild counts as the run's
  const result::OutsideProcess* spinner = nullptr;
  for (const auto& p : h->top) {
    if (p.pid == outside.pid()) spinner = &p;
  }
  // On a host busy with other builds the spinner may get less than they do and drop out of the top; it must be
  // named whenever it took more than the smallest named one.
  std::printf("spinner took %.3f s by its own /proc entry; top %zu, smallest %.3f s\n", spin_s, h->top.size(),
              h->top.empty() ? 0.0 : h->top.back().cpu_s);
  if (spinner == nullptr) {
    ASSERT_FALSE(h->top.empty());
    EXPECT_LE(spin_s, h->top.back().cpu_s + 0.05) << "the spinner took more than a named process but is not named";
  } else {
    // The window sits inside the sampled intervals, so the figure is the spinner's own to within a tick or two.
    EXPECT_NEAR(spinner->cpu_s, spin_s, 0.05 + 0.2 * spin_s);
    EXPECT_FALSE(spinner->cpus.empty());
    EXPECT_GE(h->outside_cpu_s, spinner->cpu_s);
  }
  // The monitor's own cost (this process is not in the run here, so only monitor_cpu_s shows it).
  EXPECT_LT(h->monitor_cpu_s, 0.1 * h->window_s);
  std::printf("window %.3f s: host busy %.3f s, outside %.3f s, run %.3f s, monitor %.4f s (%.2f %% of one CPU)\n",
              h->window_s, h->cpu_busy_s, h->outside_cpu_s, h->own_cpu_s, h->monitor_cpu_s,
              100 * h->monitor_cpu_s / h->window_s);
}

// Spins until this process has used `cpu_ms` of CPU, then exits: a short-lived job (a compiler, a test).
[[noreturn]] void SpinFor(int cpu_ms) {
  for (;;) {
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    if (ts.tv_sec * 1000 + ts.tv_nsec / 1000000 >= cpu_ms) _exit(0);
  }
}

// A process that runs bursts of short-lived jobs, as a shell loop or make does: every 200 ms, two children one
// after the other, each busy for 25 ms and gone before the next of the monitor's 100 ms samples can see it twice.
// Killed and reaped by pid when the guard goes.
class BurstLoad {
 public:
  BurstLoad() {
    pid_ = fork();
    if (pid_ != 0) return;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    for (;;) {
      for (int job = 0; job < 2; ++job) {
        const pid_t child = fork();
        if (child == 0) SpinFor(25);
        waitpid(child, nullptr, 0);
      }
      usleep(150000);
    }
  }
  ~BurstLoad() {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  pid_t pid() const { return pid_; }
  // The CPU seconds of the jobs it has reaped so far (its cutime + cstime): the truth the monitor is checked against.
  double JobsCpuS() const {
    std::ifstream in("/proc/" + std::to_string(pid_) + "/stat");
    std::string line;
    std::getline(in, line);
    auto p = ParseProcessStat(line);
    return p ? static_cast<double>(p->child_ticks) / static_cast<double>(sysconf(_SC_CLK_TCK)) : -1;
  }

 private:
  pid_t pid_ = -1;
};

// An idle process standing for the run's root: everything else on the host, this test included, is outside it.
class IdleRoot {
 public:
  IdleRoot() {
    pid_ = fork();
    if (pid_ == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      for (;;) pause();
    }
  }
  ~IdleRoot() {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
};

// Bursts of short-lived processes outside the run (50 ms of every 200 ms, no job alive for two samples) are
// measured: the CPUs' busy time less the run's counts them, and the shell-like parent that reaped them is named
// with them. The old monitor, which counted only processes seen in two samples, saw none of the jobs' time.
TEST(HostLoadMonitor, SeesBurstsOfShortLivedProcessesOutsideTheRun) {
  IdleRoot run;
  BurstLoad burst;
  HostLoadMonitor::Options options;
  options.root = run.pid();
  HostLoadMonitor monitor(options);
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  const double jobs_before = burst.JobsCpuS();
  const int64_t start = NowNs();
  std::this_thread::sleep_for(std::chrono::milliseconds(2000));
  const int64_t end = NowNs();
  const double jobs_s = burst.JobsCpuS() - jobs_before;
  auto h = monitor.LoadDuring(start, end, 0);
  ASSERT_TRUE(h.has_value());
  std::printf("jobs took %.3f s; window %.3f s: outside %.3f s (unattributed %.3f s, short-lived %.3f s), run %.3f s\n",
              jobs_s, h->window_s, h->outside_cpu_s, h->unattributed_cpu_s, h->ShortLivedCpuS(), h->own_cpu_s);
  ASSERT_GT(jobs_s, 0.2);  // about 10 bursts of 50 ms; fewer only on a host too busy to run them
  // Other work on the host only adds to the outside time.
  EXPECT_GE(h->outside_cpu_s, 0.7 * jobs_s);
  const result::OutsideProcess* parent = nullptr;
  for (const auto& p : h->top) {
    if (p.pid == burst.pid()) parent = &p;
  }
  if (parent == nullptr) {
    // Crowded out of the top by other builds on the host: then each of those took more than the jobs did.
    ASSERT_FALSE(h->top.empty());
    EXPECT_LE(jobs_s, h->top.back().cpu_s + 0.05)
        << "the burst's parent took more than a named process but is not named";
  } else {
    EXPECT_NEAR(parent->children_cpu_s, jobs_s, 0.05 + 0.3 * jobs_s);
    EXPECT_GE(h->ShortLivedCpuS(), 0.7 * jobs_s);
  }
}

// The control: the run's own short-lived processes (a rank process that exits between samples, a helper it runs)
// stay the run's: counted in own_cpu_s through the parent's cutime, not as outside load.
TEST(HostLoadMonitor, TheRunsOwnShortLivedProcessesAreNotOutsideLoad) {
  BurstLoad burst;  // a child of this process, the run's root
  HostLoadMonitor monitor;
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  const double jobs_before = burst.JobsCpuS();
  const int64_t start = NowNs();
  std::this_thread::sleep_for(std::chrono::milliseconds(2000));
  const int64_t end = NowNs();
  const double jobs_s = burst.JobsCpuS() - jobs_before;
  auto h = monitor.LoadDuring(start, end, 0);
  ASSERT_TRUE(h.has_value());
  std::printf("own jobs took %.3f s; window %.3f s: busy %.3f s, run %.3f s, outside %.3f s (unattributed %.3f s)\n",
              jobs_s, h->window_s, h->cpu_busy_s, h->own_cpu_s, h->outside_cpu_s, h->unattributed_cpu_s);
  ASSERT_GT(jobs_s, 0.2);
  EXPECT_GE(h->own_cpu_s, 0.7 * jobs_s);
  for (const auto& p : h->top) EXPECT_NE(p.pid, burst.pid());
  // Whatever else ran on the host, the jobs' time is not in the outside figure.
  EXPECT_LE(h->outside_cpu_s, h->cpu_busy_s - 0.7 * jobs_s);
}

TEST(HostLoadMonitor, AnEmptyWindowHasNoLoad) {
  HostLoadMonitor monitor;
  EXPECT_FALSE(monitor.LoadDuring(100, 100, 0).has_value());
  EXPECT_FALSE(monitor.LoadDuring(std::vector<result::RankSamples>{}).has_value());
}

}  // namespace
}  // namespace commbench
