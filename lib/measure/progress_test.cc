#include "lib/measure/progress.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "lib/core/temp_dir.h"

namespace commbench {
namespace {

TEST(ProgressTest, TheReaderSeesWhatTheRankPublished) {
  TempDir dir("commbench-progress-test-");
  const std::string path = ProgressPath(dir.path(), 3);
  EXPECT_FALSE(ReadProgress(path).ok());  // no page yet
  auto page = ProgressPage::Create(path, 3);
  ASSERT_TRUE(page.ok()) << page.status().message();
  auto fresh = ReadProgress(path);
  ASSERT_TRUE(fresh.ok()) << fresh.status().message();
  EXPECT_EQ(fresh->rank, 3);
  EXPECT_EQ(fresh->pid, getpid());
  EXPECT_EQ(fresh->point_index, -1);
  char host[64] = {};
  gethostname(host, sizeof(host) - 1);
  EXPECT_EQ(fresh->host, host);

  page->EnterPhase(2, ProgressPhase::kTimed);
  page->Started(7);
  page->Completed(6, 123456789);
  auto now = ReadProgress(path);
  ASSERT_TRUE(now.ok());
  EXPECT_EQ(now->point_index, 2);
  EXPECT_EQ(now->phase, ProgressPhase::kTimed);
  EXPECT_EQ(now->started, 7);
  EXPECT_EQ(now->completed, 6);
  EXPECT_EQ(now->updated_ns, 123456789);
  EXPECT_FALSE(now->failed);

  page->Failed();
  auto failed = ReadProgress(path);
  ASSERT_TRUE(failed.ok());
  EXPECT_TRUE(failed->failed);
  EXPECT_EQ(failed->completed, 6);            // the rest stays as it was
  EXPECT_FALSE(SameProgress(*now, *failed));  // the mark is news to the driver
}

ProgressSnapshot At(int rank, int point, ProgressPhase phase, int64_t started) {
  ProgressSnapshot s;
  s.rank = rank;
  s.point_index = point;
  s.phase = phase;
  s.started = started;
  s.completed = started - 1;
  return s;
}

TEST(ProgressTest, TheRankLeastFarInStoppedFirst) {
  // Rank 1 stopped before its 5th timed iteration; its peer entered that iteration and waits for it.
  auto first = StoppedFirst(
      {At(0, 1, ProgressPhase::kTimed, 5), At(1, 1, ProgressPhase::kTimed, 4), At(2, 2, ProgressPhase::kWarmup, 1)});
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].rank, 1);
  // An earlier point or phase comes first whatever the counts.
  first = StoppedFirst({At(0, 1, ProgressPhase::kTimed, 5), At(1, 1, ProgressPhase::kWarmup, 9)});
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].rank, 1);
  // Rank 1 sleeps inside iteration 1; rank 0 completed it and waits in the barrier after it.
  first = StoppedFirst({At(0, 1, ProgressPhase::kTimed, 1), At(1, 1, ProgressPhase::kTimed, 1)});
  ASSERT_EQ(first.size(), 2u);
  ProgressSnapshot done = At(0, 1, ProgressPhase::kTimed, 1);
  done.completed = 1;
  first = StoppedFirst({done, At(1, 1, ProgressPhase::kTimed, 1)});
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].rank, 1);
  // Ranks stuck inside the same call: all named.
  first = StoppedFirst({At(0, 1, ProgressPhase::kTimed, 5), At(1, 1, ProgressPhase::kTimed, 5)});
  EXPECT_EQ(first.size(), 2u);
  // A rank that never published (no page) is the least far of all.
  first = StoppedFirst({At(0, 1, ProgressPhase::kTimed, 5), At(4, -1, ProgressPhase::kSetup, 0)});
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].rank, 4);
}

}  // namespace
}  // namespace commbench
