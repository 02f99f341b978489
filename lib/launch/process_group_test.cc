#include "lib/launch/process_group.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>

namespace commbench {
namespace {

// Alive and not a zombie (an orphan's zombie may wait for a reaper that is not us).
bool Running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return false;
  const size_t after_name = text.rfind(')');
  return after_name != std::string::npos && after_name + 2 < text.size() && text[after_name + 2] != 'Z';
}

std::vector<ProcessExit> WaitAll(ProcessGroup* group) {
  std::vector<ProcessExit> exits;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!group->AllExited() && std::chrono::steady_clock::now() < deadline) {
    for (const auto& e : group->Reap()) exits.push_back(e);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return exits;
}

// A child's own variables (gate --ab's variants) reach it, replace the driver's value of the same name, and leave
// the driver's environment as it was.
TEST(ProcessGroupTest, AChildGetsItsOwnVariablesAndTheDriversStayAsTheyWere) {
  setenv("COMMBENCH_PG_TEST_KEPT", "driver", 1);
  setenv("COMMBENCH_PG_TEST_REPLACED", "driver", 1);
  std::string out = ::testing::TempDir() + "/pg_env.txt";
  ProcessSpec spec{
      {"/bin/sh", "-c", "echo $COMMBENCH_PG_TEST_KEPT $COMMBENCH_PG_TEST_REPLACED $COMMBENCH_PG_TEST_NEW"}, {}, out};
  spec.env = {{"COMMBENCH_PG_TEST_REPLACED", "child"}, {"COMMBENCH_PG_TEST_NEW", "new"}};
  ProcessGroup group;
  ASSERT_TRUE(group.Spawn({spec}).ok());
  ASSERT_EQ(WaitAll(&group).size(), 1u);
  std::ifstream f(out);
  std::string line;
  std::getline(f, line);
  EXPECT_EQ(line, "driver child new");
  EXPECT_STREQ(getenv("COMMBENCH_PG_TEST_REPLACED"), "driver");
  EXPECT_EQ(getenv("COMMBENCH_PG_TEST_NEW"), nullptr);
}

TEST(ProcessGroupTest, ReportsExitCodesSignalsAndOutput) {
  std::string out = ::testing::TempDir() + "/pg_out.txt";
  ProcessGroup group;
  ASSERT_TRUE(group
                  .Spawn({{{"/bin/sh", "-c", "echo hello; exit 3"}, {}, out},
                          {{"/bin/sh", "-c", "kill -9 $$"}, {}, ""},
                          {{"/bin/sh", "-c", "grep Cpus_allowed_list /proc/self/status"}, {0}, out + ".aff"}})
                  .ok());
  auto exits = WaitAll(&group);
  ASSERT_EQ(exits.size(), 3u);
  std::vector<std::string> described(3);
  for (const auto& e : exits) described[e.index] = e.Describe();
  EXPECT_EQ(described, (std::vector<std::string>{"exited with code 3", "was killed by SIGKILL", "exited with code 0"}));
  std::ifstream f(out);
  std::string line;
  std::getline(f, line);
  EXPECT_EQ(line, "hello");
  std::ifstream aff(out + ".aff");
  std::getline(aff, line);
  EXPECT_NE(line.find("\t0"), std::string::npos) << line;  // pinned to CPU 0
}

TEST(ProcessGroupTest, TerminateStopsEvenStubbornChildren) {
  ProcessGroup group;
  ASSERT_TRUE(
      group.Spawn({{{"/bin/sh", "-c", "trap '' TERM; sleep 30"}, {}, ""}, {{"/bin/sleep", "30"}, {}, ""}}).ok());
  pid_t stubborn = group.pid(0);
  auto t0 = std::chrono::steady_clock::now();
  group.Terminate(std::chrono::milliseconds(200));
  EXPECT_TRUE(group.AllExited());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  EXPECT_NE(kill(stubborn, 0), 0);  // gone (and reaped)
}

// The children share one process group apart from the driver's: a terminal's Ctrl-C reaches only the driver, and
// one signal stops every child and what each started (a launcher's own children).
TEST(ProcessGroupTest, ChildrenShareOneGroupApartFromTheDriversAndTerminateReachesGrandchildren) {
  std::string pids = ::testing::TempDir() + "/pg_grandchildren";
  std::vector<ProcessSpec> specs;
  for (int i = 0; i < 3; ++i) {
    specs.push_back({{"/bin/sh", "-c", "sleep 30 & echo $! >> " + pids + "; wait"}, {}, ""});
  }
  ProcessGroup group;
  ASSERT_TRUE(group.Spawn(specs).ok());
  std::vector<pid_t> grandchildren;
  for (int tries = 0; tries < 500 && grandchildren.size() < 3; ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    grandchildren.clear();
    std::ifstream f(pids);
    for (pid_t p; f >> p;) grandchildren.push_back(p);
  }
  ASSERT_EQ(grandchildren.size(), 3u);
  const pid_t shared = getpgid(group.pid(0));
  EXPECT_NE(shared, getpgrp());
  for (size_t i = 0; i < group.size(); ++i) EXPECT_EQ(getpgid(group.pid(i)), shared) << "child " << i;
  for (pid_t g : grandchildren) EXPECT_EQ(getpgid(g), shared) << "grandchild " << g;
  group.Terminate(std::chrono::milliseconds(500));
  EXPECT_TRUE(group.AllExited());
  for (pid_t g : grandchildren) {
    for (int tries = 0; tries < 200 && Running(g); ++tries) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_FALSE(Running(g)) << "grandchild " << g << " still runs";
  }
}

}  // namespace
}  // namespace commbench
