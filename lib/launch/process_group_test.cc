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

// A child's own variables (gate --ab's variants) reach it, replace the driver's value of the same name, and leave
// the driver's environment as it was.
TEST(ProcessGroupTest, AChildGetsItsOwnVariablesAndTheDriversStayAsTheyWere) {
  setenv("COMMBENCH_PG_TEST_KEPT", "driver", 1);
  setenv("COMMBENCH_PG_TEST_REPLACED", "driver", 1);
  std::string out = ::testing::TempDir() + "/pg_env.txt";
  ProcessSpec spec{{"/bin/sh", "-c", "echo $COMMBENCH_PG_TEST_KEPT $COMMBENCH_PG_TEST_REPLACED $COMMBENCH_PG_TEST_NEW"},
                   {},
                   out};
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
