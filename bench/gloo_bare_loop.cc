// Reference scenario A as its user wrote it, with Gloo and nothing else: G pairs of processes, each pair its own
// Gloo context over TCP loopback (rendezvous through a FileStore in a private temporary directory, a prefix per
// pair), 1024 allreduces of 100 floats per pair, all pairs at once. Prints the makespan per iteration: from the
// first pair's start to the last pair's end, over the iterations. bench/headline_vs_bare.sh runs it beside
// `commbench sweep` to check that commbench's headline is what this loop feels.
//
// Usage: gloo_bare_loop [--groups G] [--iters N] [--count C] [--pin compact]   (defaults 1, 1024, 100, none)
// --pin compact places the ranks as `commbench sweep --pin compact` does: rank process p of P on the allowed CPU
// p * CPUs / P, so that the two ranks of a pair share a CPU wherever pairs outnumber CPUs.
#include <gloo/allreduce_ring.h>
#include <gloo/barrier_all_to_all.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/transport/tcp/device.h>
#include <sched.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace {

struct Options {
  int groups = 1;
  int iters = 1024;
  int count = 100;
  bool pin_compact = false;
};

struct LoopTimes {
  int64_t start_ns = 0, end_ns = 0;
};

int64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

bool ParsePositive(const char* flag, const char* text, int* out) {
  char* end = nullptr;
  long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < 1 || v > 1 << 20) {
    std::fprintf(stderr, "gloo_bare_loop: error: %s '%s': expected an integer from 1 to %d\n", flag, text, 1 << 20);
    return false;
  }
  *out = static_cast<int>(v);
  return true;
}

bool ParseArgs(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--pin" && i + 1 < argc && std::string(argv[i + 1]) == "compact") {
      o->pin_compact = true;
      ++i;
      continue;
    }
    int* target = flag == "--groups"  ? &o->groups
                  : flag == "--iters" ? &o->iters
                  : flag == "--count" ? &o->count
                                      : nullptr;
    if (!target || i + 1 >= argc) {
      std::fprintf(stderr,
                   "gloo_bare_loop: error: unknown or incomplete argument '%s'; accepted: --groups G "
                   "--iters N --count C --pin compact\n",
                   argv[i]);
      return false;
    }
    if (!ParsePositive(argv[i], argv[i + 1], target)) return false;
    ++i;
  }
  return true;
}

// One rank: connect to its partner, wait at the start gate (all pairs start together, as commbench's groups
// do), run the loop, report when it started and ended, and keep its connections until every rank has reported.
int RunRank(const Options& o, const std::string& dir, int pair, int rank, int ready_fd, int gate_fd, int report_fd,
            int leave_fd) {
  gloo::transport::tcp::attr attr;
  attr.hostname = "127.0.0.1";
  auto device = gloo::transport::tcp::CreateDevice(attr);
  gloo::rendezvous::FileStore file_store(dir);
  gloo::rendezvous::PrefixStore store("pair" + std::to_string(pair), file_store);
  auto context = std::make_shared<gloo::rendezvous::Context>(rank, 2);
  context->connectFullMesh(store, device);
  std::vector<float> data(static_cast<size_t>(o.count), 1.0f);
  gloo::AllreduceRing<float> allreduce(context, {data.data()}, o.count);
  // Built before the loop so that its receive buffers are posted before the peer can send (a message that arrives
  // for no buffer, then the peer's exit, aborts this rank with "Connection closed by peer").
  gloo::BarrierAllToAll leave_together(context);

  const char ready = 1;
  if (write(ready_fd, &ready, 1) != 1) return 1;
  char go;
  if (read(gate_fd, &go, 1) != 0) return 1;  // EOF: the parent opened the gate
  LoopTimes t;
  t.start_ns = MonotonicNs();
  for (int i = 0; i < o.iters; ++i) allreduce.run();
  t.end_ns = MonotonicNs();
  leave_together.run();  // untimed
  const bool reported = write(report_fd, &t, sizeof(t)) == static_cast<ssize_t>(sizeof(t));
  close(report_fd);
  // A rank that closed its sockets while its peer still finished the barrier would abort the peer ("Connection
  // closed by peer"): the parent opens this gate (EOF) once every rank has reported or exited.
  char leave;
  if (read(leave_fd, &leave, 1) != 0) return 1;
  return reported ? 0 : 1;
}

// The CPU of rank process `p` of `processes` under --pin compact, from this process's allowed CPUs.
bool PinCompact(int p, int processes) {
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return false;
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  }
  if (cpus.empty()) return false;
  const size_t slot = std::min(static_cast<size_t>(p) * cpus.size() / static_cast<size_t>(processes), cpus.size() - 1);
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpus[slot], &one);
  return sched_setaffinity(0, sizeof(one), &one) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!ParseArgs(argc, argv, &o)) return 2;
  const char* tmp = std::getenv("TMPDIR");
  std::string dir_template = std::string(tmp && *tmp ? tmp : "/tmp") + "/gloo_bare_loop.XXXXXX";
  const char* dir = mkdtemp(dir_template.data());
  if (!dir) {
    std::perror("gloo_bare_loop: mkdtemp");
    return 1;
  }
  int ready[2], gate[2], report[2], leave[2];
  if (pipe(ready) != 0 || pipe(gate) != 0 || pipe(report) != 0 || pipe(leave) != 0) {
    std::perror("gloo_bare_loop: pipe");
    return 1;
  }
  std::vector<pid_t> children;
  for (int pair = 0; pair < o.groups; ++pair) {
    for (int rank = 0; rank < 2; ++rank) {
      pid_t pid = fork();
      if (pid == 0) {
        close(ready[0]);
        close(gate[1]);
        close(report[0]);
        close(leave[1]);
        int rc = 1;
        if (o.pin_compact && !PinCompact(2 * pair + rank, 2 * o.groups)) {
          std::perror("gloo_bare_loop: sched_setaffinity");
          _exit(1);
        }
        try {
          rc = RunRank(o, dir, pair, rank, ready[1], gate[0], report[1], leave[0]);
        } catch (const std::exception& e) {
          std::fprintf(stderr, "gloo_bare_loop: pair %d rank %d: %s\n", pair, rank, e.what());
        }
        _exit(rc);
      }
      children.push_back(pid);
    }
  }
  close(ready[1]);
  close(gate[0]);
  close(report[1]);
  close(leave[0]);
  // Once every rank has connected, open the gate for all at once. Connecting is outside the loop, as in the user's
  // program; commbench likewise connects before its timed loop.
  size_t connected = 0;
  char byte;
  while (connected < children.size() && read(ready[0], &byte, 1) == 1) ++connected;
  close(ready[0]);
  close(gate[1]);

  std::vector<LoopTimes> times;
  LoopTimes t;
  while (read(report[0], &t, sizeof(t)) == static_cast<ssize_t>(sizeof(t))) times.push_back(t);
  close(report[0]);
  close(leave[1]);  // every rank reported (or exited): they may close their connections now
  bool ok = times.size() == children.size();
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    ok = ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
  if (!ok) {
    std::fprintf(stderr, "gloo_bare_loop: a rank failed (%zu of %zu reported)\n", times.size(), children.size());
    return 1;
  }
  int64_t first = INT64_MAX, last = INT64_MIN;
  for (const LoopTimes& x : times) {
    first = std::min(first, x.start_ns);
    last = std::max(last, x.end_ns);
  }
  std::printf("groups %d iters %d count %d makespan_us_per_iter %.3f\n", o.groups, o.iters, o.count,
              static_cast<double>(last - first) * 1e-3 / o.iters);
  return 0;
}
