#include "lib/launch/driver.h"

#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <sstream>
#include <thread>

#include "lib/core/affinity.h"
#include "lib/core/ranges.h"
#include "lib/core/temp_dir.h"
#include "lib/launch/idle_queue.h"
#include "lib/launch/interrupt.h"
#include "lib/launch/launcher_failure.h"
#include "lib/launch/process_group.h"
#include "lib/launch/rank_watch.h"
#include "lib/launch/worker_plan.h"
#include "lib/measure/progress.h"

namespace commbench {
namespace {

namespace fs = std::filesystem;

// Where one finished line lies in a rank's result file: its bytes stay on disk until the idle queue reads them,
// so that points waiting there (a whole launch, while its ranks fill every core) hold no samples in memory.
struct LineRef {
  std::string path;
  size_t offset = 0, length = 0;
};

// The text of `ref` ("" when it cannot be read back).
std::string ReadLine(const LineRef& ref) {
  std::ifstream in(ref.path, std::ios::binary);
  std::string line(ref.length, '\0');
  in.seekg(static_cast<std::streamoff>(ref.offset));
  if (!in.read(line.data(), static_cast<std::streamsize>(ref.length))) return "";
  return line;
}

// A rank's result file: one line per finished point (result::RankSamples), appended by the rank. Knows where
// the lines of points that this rank finished and the driver has not taken yet lie.
class ResultTail {
 public:
  explicit ResultTail(std::string path) : path_(std::move(path)) {}
  void Poll() {
    std::ifstream in(path_, std::ios::binary);
    if (!in) return;
    in.seekg(static_cast<std::streamoff>(offset_));
    std::string chunk((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    size_t start = 0;
    for (size_t nl = chunk.find('\n'); nl != std::string::npos; nl = chunk.find('\n', start)) {
      pending_.push_back({path_, offset_ + start, nl - start});
      start = nl + 1;
    }
    offset_ += start;
  }
  size_t finished() const { return taken_ + pending_.size(); }
  LineRef Take() {
    LineRef line = std::move(pending_.front());
    pending_.pop_front();
    ++taken_;
    return line;
  }

 private:
  std::string path_;
  size_t offset_ = 0;
  size_t taken_ = 0;
  std::deque<LineRef> pending_;
};

// The last `bytes` of a file ("" when it cannot be read).
std::string Tail(const std::string& path, size_t bytes) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return "";
  const std::streamoff size = in.tellg();
  in.seekg(std::max<std::streamoff>(size - static_cast<std::streamoff>(bytes), 0));
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string LastLine(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  return last;
}

// srun from $PATH (Slurm installs live in many places); "srun" when not found, so that the error names it.
std::string SrunPath() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/srun";
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "srun";
}

// CPU time of the calling thread: the idle queue's work is measured in what it costs, not in how long it waited
// for a CPU the ranks did not want.
double ThreadCpuS() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// How long a rank itself waits for a peer before it gives up, when the driver watches it (24 h).
constexpr double kRankBackstopS = 24 * 3600;

class LaunchRunner {
 public:
  LaunchRunner(const Launch& launch, int index, const DriverOptions& options, const std::string& dir)
      : launch_(launch), index_(index), options_(options), dir_(dir + "/launch-" + std::to_string(index)) {}

  // Returns the failure message ("" on success); finished points go to options.on_point as they complete.
  std::string Run(size_t* finished, bool* interrupted) {
    finished_ = finished;
    std::string failure = Start();
    if (failure.empty()) failure = Supervise(interrupted);
    // mpirun is given time to tear its job down: it removes its ranks' shared-memory files on the way out.
    group_.Terminate(std::chrono::milliseconds(options_.spec.launcher != Launcher::kLocal ? 5000 : 1000));
    mpi_shm_.reset();  // whatever a killed mpirun left behind
    for (auto& tail : tails_) tail.Poll();
    std::string late = Deliver();  // points that completed while the others were stopped
    if (late.empty()) late = delivery_.Drain().message();
    return failure.empty() ? late : failure;
  }

 private:
  std::string Start() {
    start_ns_ = MonotonicNowNs();
    std::error_code ec;
    fs::create_directories(dir_ + "/store", ec);
    fs::create_directories(dir_ + "/results", ec);
    fs::create_directories(dir_ + "/progress", ec);
    if (ec) return "cannot create " + dir_ + ": " + ec.message();
    WorkerPlan plan = WorkerPlanFor(launch_, index_, options_.spec);
    if (options_.spec.launcher == Launcher::kSrun) plan.host.clear();  // each rank's own address
    plan.store_dir = dir_ + "/store";
    plan.results_dir = dir_ + "/results";
    plan.progress_dir = dir_ + "/progress";
    // The driver is the watchdog: it sees every rank's progress, and stops the launch only when none progressed
    // for --timeout. A rank sees only its own waits, and one waiting for a group that is slow but progressing
    // (a world barrier, the final handshake) must not give up: its own limit is only a backstop.
    plan.timeout_s = std::max(options_.spec.timeout_s, kRankBackstopS);
    std::string plan_path = dir_ + "/plan.json";
    {
      std::ofstream f(plan_path);
      f << WorkerPlanToJson(plan).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      if (!f) return "cannot write " + plan_path;
    }
    for (int r = 0; r < launch_.world; ++r) tails_.emplace_back(RankResultsPath(plan.results_dir, r));

    allowed_ = AllowedCpus();
    if (!launch_.cpus.empty()) allowed_ = *ParseCpuList(launch_.cpus, "--cpus");
    const std::vector<int>& allowed = allowed_;
    std::vector<ProcessSpec> specs;
    const int processes = launch_.processes();
    if (options_.spec.launcher == Launcher::kMpirun) {
      // OpenMPI's shared-memory transport (vader) puts one file per rank in /dev/shm, and only a live mpirun
      // removes them: point it at a private directory that this launch deletes in any case.
      mpi_shm_ = std::make_unique<TempDir>("commbench-", fs::is_directory("/dev/shm") ? "/dev/shm" : dir_);
      if (mpi_shm_->path().empty()) return "cannot create a private directory for MPI's shared memory";
      ProcessSpec spec;
      spec.argv = {
          "/usr/bin/mpirun", "--allow-run-as-root",         "--oversubscribe", "--bind-to", "none",
          "--mca",           "btl_vader_backing_directory", mpi_shm_->path(),  "-np",       std::to_string(processes)};
      for (const auto& [name, value] : options_.rank_env) spec.argv.insert(spec.argv.end(), {"-x", name});
      spec.argv.insert(spec.argv.end(), {options_.binary, "worker", "--plan", plan_path, "--process-from-env"});
      spec.cpus = launch_.cpus.empty() ? std::vector<int>{} : allowed;
      spec.output_path = LauncherLog();
      specs.push_back(spec);
    } else if (options_.spec.launcher == Launcher::kSrun) {
      // Inside an allocation srun places the tasks on its nodes; each finds its own address (the plan names
      // none) and reads and writes this launch's directory, which must be on a filesystem the nodes share.
      ProcessSpec spec;
      spec.argv = {SrunPath(),
                   "--kill-on-bad-exit=1",
                   "--ntasks",
                   std::to_string(processes),
                   options_.binary,
                   "worker",
                   "--plan",
                   plan_path,
                   "--process-from-env"};
      spec.output_path = LauncherLog();
      specs.push_back(spec);
    } else {
      for (int p = 0; p < processes; ++p) {
        ProcessSpec spec;
        spec.argv = {options_.binary, "worker", "--plan", plan_path, "--process", std::to_string(p)};
        spec.cpus =
            ProcessCpus(launch_.pin, launch_.cpus.empty() && launch_.pin == Pin::kNone ? std::vector<int>{} : allowed,
                        p, processes);
        spec.output_path = LogPath(p);
        specs.push_back(spec);
      }
    }
    for (ProcessSpec& spec : specs) spec.env = options_.rank_env;
    Status spawned = group_.Spawn(specs);
    return spawned.ok() ? "" : spawned.message();
  }

  std::string LogPath(int process) const { return dir_ + "/process-" + std::to_string(process) + ".log"; }
  // mpirun's or srun's output: one process starts every rank.
  std::string LauncherLog() const { return dir_ + "/" + std::string(Name(options_.spec.launcher)) + ".log"; }

  std::string RanksOf(size_t process_index) const {
    if (options_.spec.launcher != Launcher::kLocal) {
      return "ranks 0-" + std::to_string(launch_.world - 1) + " (" + std::string(Name(options_.spec.launcher)) + ")";
    }
    int first = static_cast<int>(process_index) * launch_.ranks_per_process;
    int last = std::min(first + launch_.ranks_per_process, launch_.world) - 1;
    return first == last ? "rank " + std::to_string(first)
                         : "ranks " + std::to_string(first) + "-" + std::to_string(last);
  }

  // The ranks process `process_index` runs (under a launcher too: its rank p is the driver's process p).
  std::string RankRange(size_t process_index) const {
    int first = static_cast<int>(process_index) * launch_.ranks_per_process;
    int last = std::min(first + launch_.ranks_per_process, launch_.world) - 1;
    return first == last ? "rank " + std::to_string(first)
                         : "ranks " + std::to_string(first) + "-" + std::to_string(last);
  }

  std::string PointName(size_t index) const {
    return index < launch_.points.size() ? launch_.points[index].Id() : "(after the last point)";
  }

  size_t MinDone() const {
    size_t done = launch_.points.size();
    for (const auto& t : tails_) done = std::min(done, t.finished());
    return done;
  }

  std::string Supervise(bool* interrupted) {
    using clock = std::chrono::steady_clock;
    const auto timeout = std::chrono::duration<double>(options_.spec.timeout_s);
    const bool by_launcher = options_.spec.launcher != Launcher::kLocal;
    size_t last_done = 0;
    auto last_progress = clock::now();
    RankWatch watch(dir_ + "/progress", launch_.world, last_progress);
    auto next_look = last_progress;
    while (true) {
      for (auto& tail : tails_) tail.Poll();
      std::string bad = Deliver();
      if (!bad.empty()) return bad;
      size_t done = MinDone();
      auto now = clock::now();
      if (done != last_done) {
        last_done = done;
        last_progress = now;
        if (options_.progress && done > 0) {
          options_.progress("  " + std::to_string(done) + "/" + std::to_string(launch_.points.size()) + " " +
                            launch_.points[done - 1].Id());
        }
      }
      // Any rank's page changing is progress: a point that keeps iterating is never cut short.
      if (now >= next_look) {
        if (watch.Poll(now)) last_progress = now;
        if (by_launcher) watch.NoteGone();
        next_look = now + std::chrono::milliseconds(100);
      }
      for (const auto& e : group_.Reap()) {
        if (e.signaled || e.code != 0) return Crashed(FirstCause(e, &watch), &watch);
      }
      if (group_.AllExited()) {
        for (auto& tail : tails_) tail.Poll();
        if (MinDone() < launch_.points.size())
          return "rank processes exited before finishing point " + PointName(MinDone());
        return "";
      }
      if (Interrupted()) {
        *interrupted = true;
        return "interrupted by signal " + std::to_string(InterruptSignal()) + " during point " + PointName(MinDone());
      }
      if (now - last_progress > timeout || watch.AnyStuckInsideAnOp(now, timeout)) return TimedOut(last_done, watch);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  // Whether a rank of process `process` marked its page failed: it left on an error of its own.
  bool SaidItFailed(int process, const RankWatch& watch) const {
    const int first = process * launch_.ranks_per_process;
    return watch.AnySaidItFailed(first, first + launch_.ranks_per_process - 1);
  }

  // A rank that fails because its peer vanished exits on its own, possibly before the peer's death is reaped: for
  // up to a second, wait for a process that left without marking its page failed (killed, crashed), the cause.
  // A launcher's single exit is judged in Crashed.
  ProcessExit FirstCause(const ProcessExit& first, RankWatch* watch) {
    if (options_.spec.launcher != Launcher::kLocal) return first;
    std::vector<ProcessExit> failed = {first};
    const auto deadline = RankWatch::Clock::now() + std::chrono::seconds(1);
    while (true) {
      const auto now = RankWatch::Clock::now();
      watch->Poll(now);
      for (const ProcessExit& e : failed) {
        if (!SaidItFailed(static_cast<int>(e.index), *watch)) return e;
      }
      if (now >= deadline || group_.AllExited()) return first;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      for (const ProcessExit& e : group_.Reap()) {
        if (e.signaled || e.code != 0) failed.push_back(e);
      }
    }
  }

  // A rank process (or the launcher that started them) failed: names the rank, its pid and host, the point and
  // its last completed iteration. A launcher reports only its own exit: the rank is the one its output names,
  // unless that one said it failed and another vanished without a word; else the first seen gone.
  std::string Crashed(const ProcessExit& e, RankWatch* watch) const {
    const auto now = RankWatch::Clock::now();
    watch->Poll(now);
    const bool by_launcher = options_.spec.launcher != Launcher::kLocal;
    const std::string log = by_launcher ? LauncherLog() : LogPath(static_cast<int>(e.index));
    const std::string why = LastLine(log);
    size_t process = e.index;
    std::string what = e.Describe();
    std::string launcher_note;
    std::optional<LauncherFailure> named;
    if (by_launcher) {
      launcher_note =
          " (" + std::string(Name(options_.spec.launcher)) + ", pid " + std::to_string(e.pid) + ", " + what + ")";
      named = ParseLauncherFailure(Tail(log, 64 * 1024));
      watch->NoteGone();
      const int silent = watch->FirstGoneWithoutAWord();
      const bool named_ok = named && named->process >= 0 && named->process < launch_.processes();
      if (named_ok && (silent < 0 || !SaidItFailed(named->process, *watch))) {
        process = static_cast<size_t>(named->process);
        what = named->what;
      } else if (silent >= 0) {  // the launcher named a rank that failed because this one vanished
        process = static_cast<size_t>(silent / launch_.ranks_per_process);
        what = "vanished without reporting an error (killed or crashed)";
      } else {
        if (watch->gone().empty())
          return RanksOf(e.index) + " (pid " + std::to_string(e.pid) + ") " + e.Describe() + " during point " +
                 PointName(MinDone()) + (why.empty() ? "" : ": " + why);
        process = static_cast<size_t>(watch->gone().front()) / static_cast<size_t>(launch_.ranks_per_process);
        what = "exited (first rank seen gone)";
      }
    }
    const int first_rank = static_cast<int>(process) * launch_.ranks_per_process;
    const RankView view = first_rank < launch_.world ? watch->View(first_rank, now) : RankView{};
    const size_t at =
        first_rank < static_cast<int>(tails_.size()) ? tails_[static_cast<size_t>(first_rank)].finished() : 0;
    const pid_t pid = by_launcher ? view.progress.pid : e.pid;
    std::string where = DescribeWhere(view);
    if (where.empty() && named && !named->host.empty()) where = ", host " + named->host;
    return RankRange(process) + " (pid " + std::to_string(pid) + ") " + what + " during point " + PointName(at) +
           where + launcher_note + (why.empty() ? "" : ": " + why);
  }

  // Names the rank(s) whose progress stopped first among those that did not finish the point (a stopped or dead
  // process before any that waits for it), then the others, which waited.
  std::string TimedOut(size_t point, const RankWatch& watch) const {
    const auto now = RankWatch::Clock::now();
    std::vector<RankView> late;
    for (size_t r = 0; r < tails_.size(); ++r) {
      if (tails_[r].finished() == point) late.push_back(watch.View(static_cast<int>(r), now));
    }
    std::ostringstream msg;
    msg << "--timeout " << options_.spec.timeout_s << " s expired in point " << PointName(point) << ": ";
    const std::vector<RankView> first = StoppedFirstViews(late);
    for (size_t i = 0; i < first.size(); ++i) {
      const RankView& v = first[i];
      msg << (i ? "; " : "") << "rank " << v.progress.rank;
      if (v.progress.pid == 0) {
        msg << " never reported progress";
        continue;
      }
      const int p = v.progress.point_index;
      msg << " (pid " << v.progress.pid << ", host " << v.progress.host << ")"
          << (v.state == RankProcessState::kStopped ? " was stopped (SIGSTOP or a debugger) and" : "")
          << (v.state == RankProcessState::kGone ? " is gone and" : "") << " stopped first: point "
          << (p < 0 ? "(none yet)" : PointName(static_cast<size_t>(p))) << DescribePhase(v.progress)
          << ", no progress for " << std::fixed << std::setprecision(1) << v.idle_s << " s";
    }
    // The others: those whose progress stopped too waited; those still progressing (other groups) are named as such.
    std::vector<int> waiting, running;
    for (const RankView& v : late) {
      const int r = v.progress.rank;
      if (std::any_of(first.begin(), first.end(), [r](const RankView& f) { return f.progress.rank == r; })) continue;
      (v.idle_s * 2 >= options_.spec.timeout_s ? waiting : running).push_back(r);
    }
    if (!waiting.empty()) msg << "; rank" << (waiting.size() > 1 ? "s " : " ") << FormatCpuList(waiting) << " waited";
    if (!running.empty()) {
      msg << "; rank" << (running.size() > 1 ? "s " : " ") << FormatCpuList(running) << " still progressing";
    }
    return msg.str();
  }

  // Queues every point that all ranks have finished for on_point, in order, and returns the first failure of
  // those queued so far ("" when fine). Parsing and on_point run on the idle queue: while the launch's next point
  // runs, they take no CPU time its ranks want.
  std::string Deliver() {
    while (delivered_ < MinDone()) {
      FinishedPoint fp;
      fp.point = launch_.points[delivered_];
      fp.cores_available = static_cast<int>(allowed_.size());
      // Another host's clock is not ours: the spawn is measured where driver and ranks share one.
      if (delivered_ == 0 && options_.spec.launcher == Launcher::kLocal) fp.launch_start_ns = start_ns_;
      std::vector<LineRef> lines;
      for (auto& tail : tails_) lines.push_back(tail.Take());
      delivery_.Post([this, fp = std::move(fp), lines = std::move(lines), name = PointName(delivered_)]() mutable {
        const double parse_start_s = ThreadCpuS();
        for (size_t r = 0; r < lines.size(); ++r) {
          auto samples = result::ParseRankSamplesLine(ReadLine(lines[r]));
          if (!samples.ok()) {
            return Internal("rank " + std::to_string(r) + " sent a bad result in point " + name + ": " +
                            samples.status().message());
          }
          fp.ranks.push_back(std::move(*samples));
        }
        fp.parse_s = ThreadCpuS() - parse_start_s;
        return options_.on_point ? options_.on_point(std::move(fp)) : OkStatus();
      });
      ++delivered_;
      ++*finished_;
    }
    return delivery_.FirstFailure().message();
  }

  const Launch& launch_;
  int index_;
  const DriverOptions& options_;
  std::string dir_;
  ProcessGroup group_;
  std::vector<ResultTail> tails_;
  std::vector<int> allowed_;          // the CPUs this launch's ranks may use
  std::unique_ptr<TempDir> mpi_shm_;  // MPI's shared-memory files (mpirun launches only)
  size_t delivered_ = 0;              // points of this launch handed to on_point
  int64_t start_ns_ = 0;              // CLOCK_MONOTONIC when Start began (the first point's spawn phase)
  size_t* finished_ = nullptr;        // the whole run's count
  IdleQueue delivery_;                // last: drained and stopped before the members its tasks read
};

}  // namespace

std::vector<int> ProcessCpus(Pin pin, const std::vector<int>& allowed, int p, int processes) {
  if (allowed.empty() || pin == Pin::kNone) return allowed;
  const size_t n = allowed.size();
  if (pin == Pin::kCompact) {
    // Consecutive processes share a CPU before moving on: fills CPUs in order.
    size_t slot = static_cast<size_t>(p) * n / static_cast<size_t>(std::max(processes, 1));
    return {allowed[std::min(slot, n - 1)]};
  }
  return {allowed[static_cast<size_t>(p) % n]};  // spread: round-robin
}

DriverOutcome RunPlan(const Plan& plan, const DriverOptions& options) {
  DriverOutcome outcome;
  TempDir dir("commbench-");  // removed on every exit path of the driver
  if (dir.path().empty()) {
    outcome.failure = "cannot create a private temporary directory under $TMPDIR or /tmp";
    return outcome;
  }
  for (size_t i = 0; i < plan.launches.size(); ++i) {
    const Launch& launch = plan.launches[i];
    if (options.progress) {
      options.progress("[" + std::to_string(i + 1) + "/" + std::to_string(plan.launches.size()) + "] world of " +
                       std::to_string(launch.world) + " ranks, " + std::to_string(launch.points.size()) + " points");
    }
    LaunchRunner runner(launch, static_cast<int>(i), options, dir.path());
    outcome.failure = runner.Run(&outcome.points_finished, &outcome.interrupted);
    if (!outcome.failure.empty()) break;
  }
  return outcome;
}

}  // namespace commbench
