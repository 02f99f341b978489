// Leftovers of killed processes, with real processes: a child that has exited (its pid dead), one still running,
// and one whose pid "was reused" (the entry older than the running process).
#include "lib/core/leftovers.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "lib/core/atomic_file.h"
#include "lib/core/temp_dir.h"

namespace commbench {
namespace {

namespace fs = std::filesystem;

// A child that has exited and been reaped: its pid runs nothing (until reused, which takes a full pid cycle).
pid_t DeadPid() {
  const pid_t pid = fork();
  if (pid == 0) _exit(0);
  waitpid(pid, nullptr, 0);
  return pid;
}

// A child that runs until killed.
pid_t LivePid() {
  const pid_t pid = fork();
  if (pid == 0) {
    pause();
    _exit(0);
  }
  return pid;
}

void Stop(pid_t pid) {
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

void Touch(const std::string& path) { std::ofstream(path) << "x"; }

// Sets an entry's modification time `seconds` into the past.
void Age(const std::string& path, int seconds) {
  struct timeval now;
  gettimeofday(&now, nullptr);
  now.tv_sec -= seconds;
  const struct timeval times[2] = {now, now};
  ASSERT_EQ(utimes(path.c_str(), times), 0);
}

TEST(LeftoversTest, RecognisesOnlyItsOwnNames) {
  EXPECT_EQ(LeftoverPid("commbench-123-aB3xYz", "commbench-", true), 123);
  EXPECT_EQ(LeftoverPid("r.json.tmp-77-aB3xYz", ".tmp-", false), 77);
  EXPECT_EQ(LeftoverPid("a.tmp-1.tmp-77-aB3xYz", ".tmp-", false), 77);
  for (const char* name :
       {"commbench-aB3xYz", "commbench-123-aB3xY", "commbench-123-aB3xYz1", "commbench--aB3xYz",
        "commbench-gate-123-aB3xYz", "commbench-0-aB3xYz", "xcommbench-123-aB3xYz", "commbench-123-aB3x.z"}) {
    EXPECT_FALSE(LeftoverPid(name, "commbench-", true)) << name;
  }
  EXPECT_FALSE(LeftoverPid("r.json.tmp-XXXXXX", ".tmp-", false));
}

TEST(LeftoversTest, RemovesDirectoriesOfDeadProcessesOnly) {
  TempDir parent("leftovers-");
  const pid_t dead = DeadPid();
  const pid_t live = LivePid();
  const std::string stale = parent.path() + "/commbench-" + std::to_string(dead) + "-aB3xYz";
  const std::string running = parent.path() + "/commbench-" + std::to_string(live) + "-aB3xYz";
  const std::string mine = parent.path() + "/commbench-" + std::to_string(getpid()) + "-aB3xYz";
  const std::string other_name = parent.path() + "/commbench-run-" + std::to_string(dead) + "-aB3xYz";
  for (const std::string& d : {stale, running, mine, other_name}) {
    ASSERT_TRUE(fs::create_directory(d));
    Touch(d + "/launch.log");
  }
  EXPECT_EQ(RemoveLeftoverDirs(parent.path(), "commbench-"), 1);
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(running + "/launch.log"));
  EXPECT_TRUE(fs::exists(mine));
  EXPECT_TRUE(fs::exists(other_name));
  // The live pid's entry was last changed before that process started: the pid was reused, the entry is stale.
  Age(running, 3600);
  EXPECT_EQ(RemoveLeftoverDirs(parent.path(), "commbench-"), 1);
  EXPECT_FALSE(fs::exists(running));
  Stop(live);
}

TEST(LeftoversTest, ANewTempDirRemovesTheLeftoversOfItsPrefix) {
  TempDir parent("leftovers-");
  const std::string stale = parent.path() + "/run-" + std::to_string(DeadPid()) + "-aB3xYz";
  ASSERT_TRUE(fs::create_directory(stale));
  TempDir fresh("run-", parent.path());
  ASSERT_FALSE(fresh.path().empty());
  EXPECT_EQ(fs::path(fresh.path()).filename().string().rfind("run-" + std::to_string(getpid()) + "-", 0), 0u);
  EXPECT_FALSE(fs::exists(stale));
}

TEST(LeftoversTest, ANewOutputRemovesTheTemporaryFilesOfDeadWriters) {
  TempDir dir("leftovers-");
  const pid_t live = LivePid();
  const std::string stale = dir.path() + "/r.json.tmp-" + std::to_string(DeadPid()) + "-aB3xYz";
  const std::string stale_other = dir.path() + "/other.json.tmp-" + std::to_string(DeadPid()) + "-Qw12er";
  const std::string running = dir.path() + "/r.json.tmp-" + std::to_string(live) + "-aB3xYz";
  const std::string unrelated = dir.path() + "/notes.tmp-1x-aB3xYz";
  for (const std::string& f : {stale, stale_other, running, unrelated}) Touch(f);
  ASSERT_TRUE(WriteFileAtomically(dir.path() + "/r.json", "{}").ok());
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_FALSE(fs::exists(stale_other));
  EXPECT_TRUE(fs::exists(running));
  EXPECT_TRUE(fs::exists(unrelated));
  Stop(live);
}

}  // namespace
}  // namespace commbench
