// Rank processes on this host: spawned together, watched together, and never left behind. Each child dies with
// the driver (PR_SET_PDEATHSIG), and the children share one process group apart from the driver's, so a terminal's
// Ctrl-C reaches only the driver, which then stops them all with one signal.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "lib/core/status.h"

namespace commbench {

struct ProcessSpec {
  std::vector<std::string> argv;
  std::vector<int> cpus;    // affinity; empty: inherit
  std::string output_path;  // stdout and stderr of the child
  // Variables set (or replaced) in the child's environment on top of the driver's own: the driver's environment
  // itself never changes.
  std::vector<std::pair<std::string, std::string>> env = {};
};

struct ProcessExit {
  size_t index = 0;
  pid_t pid = 0;
  bool signaled = false;
  int code = 0;                  // exit code, or the signal number when signaled
  std::string Describe() const;  // "exited with code 1", "was killed by SIGKILL"
};

class ProcessGroup {
 public:
  ProcessGroup() = default;
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;
  ~ProcessGroup();  // terminates whatever still runs

  // Stops early (Unavailable, naming the signal) once Interrupted(): what it started so far still runs.
  Status Spawn(const std::vector<ProcessSpec>& specs);
  // Non-blocking: the processes that exited since the last call.
  std::vector<ProcessExit> Reap();
  bool AllExited() const { return running_ == 0; }
  pid_t pid(size_t index) const { return pids_[index]; }
  bool running(size_t index) const { return alive_[index]; }
  size_t size() const { return pids_.size(); }
  // SIGTERM, then SIGKILL after `grace`; returns when every child is reaped.
  void Terminate(std::chrono::milliseconds grace);

 private:
  std::vector<pid_t> pids_;
  pid_t group_ = 0;  // the children's process group: the first child's pid
  std::vector<bool> alive_;
  size_t running_ = 0;
};

}  // namespace commbench
