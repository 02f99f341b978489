// Runs the real commbench binary in tests: a child process with a private TMPDIR, its output captured.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace commbench::testing {

struct CliResult {
  int exit_code = -1;  // 128 + signal when killed
  std::string out;
  std::string err;
};

class CliRunner {
 public:
  CliRunner();   // makes a private temp dir, used as TMPDIR for the child and for outputs
  ~CliRunner();  // removes it

  const std::string& dir() const { return dir_; }
  static std::string Binary();

  CliResult Run(const std::vector<std::string>& args);
  // Asynchronous variant: Start, then Wait.
  pid_t Start(const std::vector<std::string>& args);
  CliResult Wait(pid_t pid);
  // Where a started process writes: its own files, so that processes run side by side never overwrite each other.
  std::string OutPath(pid_t pid) const { return dir_ + "/stdout." + std::to_string(pid); }
  std::string ErrPath(pid_t pid) const { return dir_ + "/stderr." + std::to_string(pid); }
  // As Start, but stdout and stderr both go to a pipe whose read end is returned in `*read_fd`.
  pid_t StartPiped(const std::vector<std::string>& args, int* read_fd);

  // Processes whose parent is `pid` (from /proc).
  static std::vector<pid_t> Children(pid_t pid);
  // Processes (anywhere) whose command line mentions this runner's directory: leftovers of its runs.
  std::vector<pid_t> Leftovers() const;
  // Entries in TMPDIR other than the runner's own files (commbench's temp dirs must be gone).
  std::vector<std::string> TempEntries() const;

 private:
  pid_t StartWithOutput(const std::vector<std::string>& args, int output_fd);  // -1: its own files (OutPath, ErrPath)

  std::string dir_;
  std::string tmp_;
};

}  // namespace commbench::testing
