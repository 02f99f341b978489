#include "lib/launch/process_group.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <thread>

#include "lib/launch/interrupt.h"

extern char** environ;

namespace commbench {

std::string ProcessExit::Describe() const {
  if (signaled) {
    const char* name = sigabbrev_np(code);
    return std::string("was killed by SIG") + (name ? name : std::to_string(code));
  }
  return "exited with code " + std::to_string(code);
}

namespace {

// The driver's environment with `overrides` set or replaced, as NAME=VALUE strings (built before fork).
std::vector<std::string> ChildEnvironment(const std::vector<std::pair<std::string, std::string>>& overrides) {
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string entry(*e);
    const std::string name = entry.substr(0, entry.find('='));
    const bool replaced =
        std::any_of(overrides.begin(), overrides.end(), [&](const auto& o) { return o.first == name; });
    if (!replaced) out.push_back(entry);
  }
  for (const auto& [name, value] : overrides) out.push_back(name + "=" + value);
  return out;
}

}  // namespace

ProcessGroup::~ProcessGroup() { Terminate(std::chrono::milliseconds(500)); }

Status ProcessGroup::Spawn(const std::vector<ProcessSpec>& specs) {
  const pid_t parent = getpid();
  for (const auto& spec : specs) {
    // Starting thousands of ranks takes seconds on a busy host: a Ctrl-C or SIGTERM meanwhile stops the start
    // at once (the caller then stops what already runs) rather than after the last fork.
    if (Interrupted()) {
      return Unavailable("interrupted by signal " + std::to_string(InterruptSignal()) +
                         " while starting rank "
                         "processes (" +
                         std::to_string(pids_.size()) + " of " + std::to_string(specs.size()) + " started)");
    }
    // Everything the child needs is prepared before fork: after it only async-signal-safe calls are allowed.
    std::vector<char*> argv;
    for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    std::vector<std::string> env_text = ChildEnvironment(spec.env);
    std::vector<char*> envp;
    for (auto& e : env_text) envp.push_back(e.data());
    envp.push_back(nullptr);
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int c : spec.cpus) CPU_SET(c, &set);
    int out_fd = -1;
    if (!spec.output_path.empty()) {
      out_fd = open(spec.output_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
      if (out_fd < 0) return Internal("cannot create " + spec.output_path + ": " + strerror(errno));
    }
    // The driver's signal handlers only set a flag: a child that inherited them would shrug off the SIGTERM
    // that stops it until exec. Signals wait (blocked) across fork; the child restores the defaults first.
    sigset_t stop_signals, before;
    sigemptyset(&stop_signals);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) sigaddset(&stop_signals, sig);
    pthread_sigmask(SIG_BLOCK, &stop_signals, &before);
    pid_t pid = fork();
    if (pid == 0) {
      for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) signal(sig, SIG_DFL);
      pthread_sigmask(SIG_SETMASK, &before, nullptr);
    } else {
      pthread_sigmask(SIG_SETMASK, &before, nullptr);
    }
    if (pid < 0) {
      if (out_fd >= 0) close(out_fd);
      Terminate(std::chrono::milliseconds(200));
      return Internal(std::string("fork failed: ") + strerror(errno));
    }
    if (pid == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(127);  // the driver died before prctl took effect
      // group_ is 0 for the first child: it founds the group the others join (or a group of its own should
      // every earlier child be gone already, so that it never stays in the driver's).
      if (setpgid(0, group_) != 0) setpgid(0, 0);
      if (out_fd >= 0) {
        dup2(out_fd, STDOUT_FILENO);
        dup2(out_fd, STDERR_FILENO);
      }
      if (!spec.cpus.empty() && sched_setaffinity(0, sizeof(set), &set) != 0) _exit(126);
      execve(argv[0], argv.data(), envp.data());
      _exit(127);
    }
    if (out_fd >= 0) close(out_fd);
    setpgid(pid, group_ == 0 ? pid : group_);  // also from the parent: no window where the child is in ours
    if (group_ == 0) group_ = pid;
    pids_.push_back(pid);
    alive_.push_back(true);
    ++running_;
  }
  return OkStatus();
}

std::vector<ProcessExit> ProcessGroup::Reap() {
  std::vector<ProcessExit> exits;
  for (size_t i = 0; i < pids_.size(); ++i) {
    if (!alive_[i]) continue;
    int status = 0;
    pid_t r = waitpid(pids_[i], &status, WNOHANG);
    if (r != pids_[i]) continue;
    alive_[i] = false;
    --running_;
    ProcessExit e;
    e.index = i;
    e.pid = pids_[i];
    e.signaled = WIFSIGNALED(status);
    e.code = e.signaled ? WTERMSIG(status) : WEXITSTATUS(status);
    exits.push_back(e);
  }
  return exits;
}

void ProcessGroup::Terminate(std::chrono::milliseconds grace) {
  if (running_ == 0) return;
  // One signal to the children's shared group (mpirun's children too): signalling thousands of ranks one by one
  // on a busy host let each dying rank preempt the driver between two kills, seconds in all.
  kill(-group_, SIGTERM);
  auto deadline = std::chrono::steady_clock::now() + grace;
  while (running_ > 0 && std::chrono::steady_clock::now() < deadline) {
    Reap();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  kill(-group_, SIGKILL);
  for (size_t i = 0; i < pids_.size(); ++i) {
    if (alive_[i]) kill(pids_[i], SIGKILL);  // also a child that could not join the group (see Spawn)
  }
  while (running_ > 0) {
    Reap();
    if (running_ > 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

}  // namespace commbench
