#include "lib/launch/launcher_failure.h"

#include <gtest/gtest.h>

namespace commbench {
namespace {

TEST(LauncherFailureTest, MpirunNamesTheKilledRankAndItsNode) {
  // What OpenMPI 4.1 printed here when rank 1 of 3 was SIGKILLed.
  const std::string out =
      "--------------------------------------------------------------------------\n"
      "Primary job  terminated normally, but 1 process returned\n"
      "a non-zero exit code. Per user-direction, the job has been aborted.\n"
      "--------------------------------------------------------------------------\n"
      "mpirun noticed that process rank 1 with PID 0 on node vm exited on signal 9 (Killed).\n";
  auto f = ParseLauncherFailure(out);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->process, 1);
  EXPECT_EQ(f->host, "vm");
  EXPECT_EQ(f->what, "was killed by signal 9 (Killed)");
}

TEST(LauncherFailureTest, MpirunNamesTheFirstRankThatExitedWithAnError) {
  const std::string out =
      "mpirun detected that one or more processes exited with non-zero status, thus causing\n"
      "the job to be terminated. The first process to do so was:\n\n"
      "  Process name: [[17096,1],2]\n"
      "  Exit code:    3\n";
  auto f = ParseLauncherFailure(out);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->process, 2);
  EXPECT_EQ(f->host, "");
  EXPECT_EQ(f->what, "exited with code 3");
}

TEST(LauncherFailureTest, SrunNamesTheTaskAndItsHost) {
  auto killed = ParseLauncherFailure("srun: Job step aborted\nsrun: error: h1: task 3: Killed\n");
  ASSERT_TRUE(killed.has_value());
  EXPECT_EQ(killed->process, 3);
  EXPECT_EQ(killed->host, "h1");
  EXPECT_EQ(killed->what, "was killed");
  auto exited = ParseLauncherFailure("srun: error: h0: tasks 0-1: Exited with exit code 2\n");
  ASSERT_TRUE(exited.has_value());
  EXPECT_EQ(exited->process, 0);
  EXPECT_EQ(exited->what, "exited with code 2");
}

TEST(LauncherFailureTest, TextThatNamesNoProcessGivesNothing) {
  EXPECT_FALSE(ParseLauncherFailure("").has_value());
  EXPECT_FALSE(ParseLauncherFailure("srun: error: Unable to allocate resources: Invalid partition\n").has_value());
  EXPECT_FALSE(
      ParseLauncherFailure("process rank 99999999999999999999 with PID 1 on node x exited on signal 9").has_value());
}

}  // namespace
}  // namespace commbench
