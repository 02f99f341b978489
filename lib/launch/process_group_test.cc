#include "lib/launch/process_group.h"

#include <signal.h>

#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

namespace commbench {
namespace {

std::vector<ProcessExit> WaitAll(ProcessGroup* group) {
  std::vector<ProcessExit> exits;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!group->AllExited() && std::chrono::steady_clock::now() < deadline) {
    for (const auto& e : group->Reap()) exits.push_back(e);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return exits;
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
  ASSERT_TRUE(group.Spawn({{{"/bin/sh", "-c", "trap '' TERM; sleep 30"}, {}, ""}, {{"/bin/sleep", "30"}, {}, ""}}).ok());
  pid_t stubborn = group.pid(0);
  auto t0 = std::chrono::steady_clock::now();
  group.Terminate(std::chrono::milliseconds(200));
  EXPECT_TRUE(group.AllExited());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  EXPECT_NE(kill(stubborn, 0), 0);  // gone (and reaped)
}

}  // namespace
}  // namespace commbench
