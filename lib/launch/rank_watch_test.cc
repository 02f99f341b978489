#include "lib/launch/rank_watch.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/core/temp_dir.h"

namespace commbench {
namespace {

using Clock = RankWatch::Clock;

std::string ThisHost() {
  char name[256] = {};
  gethostname(name, sizeof(name) - 1);
  return name;
}

RankView At(int rank, int64_t completed, int64_t started, RankProcessState state) {
  RankView v;
  v.progress.rank = rank;
  v.progress.pid = 100 + rank;
  v.progress.host = "h";
  v.progress.point_index = 0;
  v.progress.phase = ProgressPhase::kTimed;
  v.progress.completed = completed;
  v.progress.started = started;
  v.state = state;
  return v;
}

std::vector<int> Ranks(const std::vector<RankView>& views) {
  std::vector<int> out;
  for (const RankView& v : views) out.push_back(v.progress.rank);
  return out;
}

TEST(RankWatchTest, AStoppedRankIsNamedAloneThoughItsPeerWaitsInTheSameCall) {
  // Rank 1 was stopped inside iteration 5; rank 0 waits for it inside the same iteration: equally far in.
  const std::vector<RankView> late = {At(0, 4, 5, RankProcessState::kRunning), At(1, 4, 5, RankProcessState::kStopped)};
  EXPECT_EQ(Ranks(StoppedFirstViews(late)), std::vector<int>{1});
}

TEST(RankWatchTest, AGoneRankComesBeforeOneThatIsLessFarIn) {
  const std::vector<RankView> late = {At(0, 2, 2, RankProcessState::kRunning), At(1, 7, 8, RankProcessState::kGone)};
  EXPECT_EQ(Ranks(StoppedFirstViews(late)), std::vector<int>{1});
}

TEST(RankWatchTest, EveryHaltedRankIsNamedLeastFarInFirst) {
  // Rank 3 was killed (its group further in); rank 1 left on the same fault before its word arrived.
  const std::vector<RankView> late = {At(1, 4263, 4264, RankProcessState::kGone),
                                      At(2, 5000, 5001, RankProcessState::kRunning),
                                      At(3, 5500, 5501, RankProcessState::kGone)};
  EXPECT_EQ(Ranks(StoppedFirstViews(late)), (std::vector<int>{1, 3}));
}

TEST(RankWatchTest, WithoutAHaltedProcessTheLeastFarInIsNamedAndTiesAreAllNamed) {
  EXPECT_EQ(
      Ranks(StoppedFirstViews({At(0, 4, 5, RankProcessState::kRunning), At(1, 4, 4, RankProcessState::kUnknown)})),
      std::vector<int>{1});
  EXPECT_EQ(
      Ranks(StoppedFirstViews({At(0, 4, 5, RankProcessState::kRunning), At(1, 4, 5, RankProcessState::kRunning)})),
      (std::vector<int>{0, 1}));
}

TEST(RankWatchTest, DescribeWhereSaysHostAndIteration) {
  EXPECT_EQ(DescribeWhere(At(1, 4, 5, RankProcessState::kRunning)),
            ", host h, last completed timed iteration 4 (iteration 5 begun)");
  RankView setting_up = At(1, 0, 0, RankProcessState::kRunning);
  setting_up.progress.phase = ProgressPhase::kSetup;
  EXPECT_EQ(DescribeWhere(setting_up), ", host h, setting up");
  EXPECT_EQ(DescribeWhere(RankView{}), "");
}

TEST(RankWatchTest, ProcessStateOfARealChildStoppedThenGone) {
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    pause();
    _exit(0);
  }
  EXPECT_EQ(ProcessStateOf(child, ThisHost()), RankProcessState::kRunning);  // asleep in pause(): running
  EXPECT_EQ(ProcessStateOf(child, "another-host"), RankProcessState::kUnknown);
  kill(child, SIGSTOP);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, WUNTRACED), child);
  EXPECT_EQ(ProcessStateOf(child, ThisHost()), RankProcessState::kStopped);
  kill(child, SIGKILL);
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_EQ(ProcessStateOf(child, ThisHost()), RankProcessState::kGone);
}

// Fields after the command: state ppid pgrp session tty_nr tpgid flags (PF_EXITING is 0x4).
TEST(RankWatchTest, AProcessTheKernelMarksExitingIsGoneWhateverItsState) {
  EXPECT_EQ(StateOfStatLine("42 (commbench) R 1 42 42 0 -1 4194560 0 0"), RankProcessState::kRunning);
  EXPECT_EQ(StateOfStatLine("42 (commbench) R 1 42 42 0 -1 4194564 0 0"), RankProcessState::kGone);
  EXPECT_EQ(StateOfStatLine("42 (a) (b)) D 1 42 42 0 -1 4 0 0"), RankProcessState::kGone);
  EXPECT_EQ(StateOfStatLine("42 (commbench) T 1 42 42 0 -1 4194560 0 0"), RankProcessState::kStopped);
  EXPECT_EQ(StateOfStatLine("42 (commbench) Z 1 42 42 0 -1 4194560 0 0"), RankProcessState::kGone);
  EXPECT_EQ(StateOfStatLine("42 (commbench"), RankProcessState::kUnknown);
}

TEST(RankWatchTest, APageThatKeepsChangingIsNeverIdleAndAGoneRankIsNoted) {
  TempDir dir("commbench-rank-watch-test-");
  const Clock::time_point t0 = Clock::now();
  RankWatch watch(dir.path(), 2, t0);
  EXPECT_FALSE(watch.Poll(t0));  // no pages yet
  auto page = ProgressPage::Create(ProgressPath(dir.path(), 0), 0);
  ASSERT_TRUE(page.ok());
  page->EnterPhase(0, ProgressPhase::kTimed);
  EXPECT_TRUE(watch.Poll(t0 + std::chrono::seconds(1)));
  EXPECT_FALSE(watch.Poll(t0 + std::chrono::seconds(2)));  // nothing changed
  page->Started(1);
  EXPECT_TRUE(watch.Poll(t0 + std::chrono::seconds(3)));
  EXPECT_DOUBLE_EQ(watch.View(0, t0 + std::chrono::seconds(4)).idle_s, 1.0);
  EXPECT_DOUBLE_EQ(watch.View(1, t0 + std::chrono::seconds(4)).idle_s, 4.0);  // never published: since the start
  EXPECT_EQ(watch.View(0, t0).state, RankProcessState::kRunning);             // this process
  // Rank 0 has begun operation 1 and not completed it: stuck once that lasts longer than the limit.
  EXPECT_FALSE(watch.AnyStuckInsideAnOp(t0 + std::chrono::seconds(4), std::chrono::seconds(2)));
  EXPECT_TRUE(watch.AnyStuckInsideAnOp(t0 + std::chrono::seconds(6), std::chrono::seconds(2)));
  page->Completed(1, 0);  // between operations (waiting for a turn, or at the world barrier): never stuck
  EXPECT_TRUE(watch.Poll(t0 + std::chrono::seconds(7)));
  EXPECT_FALSE(watch.AnyStuckInsideAnOp(t0 + std::chrono::seconds(60), std::chrono::seconds(2)));
  watch.NoteGone();
  EXPECT_TRUE(watch.gone().empty());
}

// A child that publishes rank `rank`'s page, marks it failed when `says_it_failed`, then waits to be killed.
pid_t RankChild(const std::string& dir, int rank, bool says_it_failed) {
  pid_t child = fork();
  if (child == 0) {
    auto page = ProgressPage::Create(ProgressPath(dir, rank), rank);
    if (!page.ok()) _exit(1);
    page->EnterPhase(0, ProgressPhase::kTimed);
    if (says_it_failed) page->Failed();
    pause();
    _exit(0);
  }
  return child;
}

TEST(RankWatchTest, TheCauseIsTheRankGoneWithoutAWordNotThePeerThatFailedFirst) {
  TempDir dir("commbench-rank-watch-test-");
  RankWatch watch(dir.path(), 3, Clock::now());
  const pid_t peer = RankChild(dir.path(), 0, true);
  const pid_t victim = RankChild(dir.path(), 1, false);
  const pid_t bystander = RankChild(dir.path(), 2, false);
  // Until every child's page is up: a rank killed before it published is not yet a rank the watch can see gone
  // (on a loaded host the victim once published after rank 2).
  auto all_up = [&] {
    watch.Poll(Clock::now());
    for (int r : {1, 2}) {
      if (watch.View(r, Clock::now()).progress.pid == 0) return false;
    }
    return watch.AnySaidItFailed(0, 0);
  };
  for (int i = 0; i < 500 && !all_up(); ++i) usleep(10000);
  ASSERT_TRUE(watch.AnySaidItFailed(0, 0));
  EXPECT_FALSE(watch.AnySaidItFailed(1, 2));
  EXPECT_EQ(watch.FirstGoneWithoutAWord(), -1);  // nobody gone yet
  for (pid_t p : {peer, victim}) {               // the peer that said it failed is seen gone first
    kill(p, SIGKILL);
    waitpid(p, nullptr, 0);
    watch.NoteGone();
  }
  EXPECT_EQ(watch.gone(), (std::vector<int>{0, 1}));
  EXPECT_EQ(watch.FirstGoneWithoutAWord(), 1);
  kill(bystander, SIGKILL);  // torn down later: still after the victim
  waitpid(bystander, nullptr, 0);
  watch.NoteGone();
  EXPECT_EQ(watch.FirstGoneWithoutAWord(), 1);
}

}  // namespace
}  // namespace commbench
