#include "tools/commbench/testing/cli_runner.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace commbench::testing {

namespace fs = std::filesystem;

namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

CliRunner::CliRunner() {
  const char* base = getenv("TEST_TMPDIR");
  std::string tmpl = std::string(base ? base : "/tmp") + "/cli-XXXXXX";
  dir_ = mkdtemp(tmpl.data());
  tmp_ = dir_ + "/tmp";
  fs::create_directories(tmp_);
}

CliRunner::~CliRunner() {
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

std::string CliRunner::Binary() {
  const char* srcdir = getenv("TEST_SRCDIR");
  const char* workspace = getenv("TEST_WORKSPACE");
  return std::string(srcdir ? srcdir : ".") + "/" + (workspace ? workspace : "commbench") +
         "/tools/commbench/commbench";
}

pid_t CliRunner::Start(const std::vector<std::string>& args) { return StartWithOutput(args, -1); }

pid_t CliRunner::StartPiped(const std::vector<std::string>& args, int* read_fd) {
  int fds[2];  // close-on-exec: the child keeps only its copies on 1 and 2, so closing ours breaks the pipe
  if (pipe2(fds, O_CLOEXEC) != 0) return -1;
  pid_t pid = StartWithOutput(args, fds[1]);
  close(fds[1]);
  *read_fd = fds[0];
  return pid;
}

pid_t CliRunner::StartWithOutput(const std::vector<std::string>& args, int output_fd) {
  std::string binary = Binary();
  std::vector<std::string> argv{binary};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    const std::string out = OutPath(getpid()), err = ErrPath(getpid());
    int o = output_fd >= 0 ? output_fd : open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int e = output_fd >= 0 ? output_fd : open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(o, 1);
    dup2(e, 2);
    setenv("TMPDIR", tmp_.c_str(), 1);
    if (chdir(dir_.c_str()) != 0) _exit(126);
    execv(cargv[0], cargv.data());
    _exit(127);
  }
  return pid;
}

CliResult CliRunner::Wait(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = ReadFile(OutPath(pid));
  r.err = ReadFile(ErrPath(pid));
  return r;
}

CliResult CliRunner::Run(const std::vector<std::string>& args) { return Wait(Start(args)); }

std::vector<pid_t> CliRunner::Children(pid_t pid) {
  std::vector<pid_t> kids;
  std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
  pid_t k;
  while (in >> k) kids.push_back(k);
  return kids;
}

std::vector<pid_t> CliRunner::Leftovers() const {
  std::vector<pid_t> found;
  DIR* proc = opendir("/proc");
  if (!proc) return found;
  while (dirent* e = readdir(proc)) {
    pid_t pid = atoi(e->d_name);
    if (pid <= 0) continue;
    std::string cmd = ReadFile("/proc/" + std::string(e->d_name) + "/cmdline");
    for (auto& c : cmd) c = c ? c : ' ';
    // Zombies have an empty command line: only live processes count.
    if (cmd.find(tmp_) != std::string::npos && cmd.find("worker") != std::string::npos) found.push_back(pid);
  }
  closedir(proc);
  return found;
}

std::vector<std::string> CliRunner::TempEntries() const {
  std::vector<std::string> entries;
  for (const auto& e : fs::directory_iterator(tmp_)) entries.push_back(e.path().filename().string());
  return entries;
}

}  // namespace commbench::testing
