#include "lib/launch/progress_beacon.h"

#include <gtest/gtest.h>

#include "lib/core/temp_dir.h"

namespace commbench {
namespace {

using Clock = std::chrono::steady_clock;

// A real file store and real progress pages: what one rank publishes, rank 0 reads, on its own clock.
TEST(ProgressBeaconTest, RankZeroSeesEachChangeOnceAndWhenARankStoppedMoving) {
  TempDir dir("commbench-beacon-test-"), store_dir("commbench-beacon-store-");  // private (0700) directories
  auto store = NewFileStore(store_dir.path());
  const std::string page_path = ProgressPath(dir.path(), 1);
  auto page = ProgressPage::Create(page_path, 1);
  ASSERT_TRUE(page.ok());
  const Clock::time_point t0 = Clock::now();
  ProgressBeacon beacon(store.get(), "launch/0/beat/", 1, page_path, std::chrono::seconds(1));
  BeatWatch watch(store.get(), "launch/0/beat/", 2, t0);

  page->EnterPhase(0, ProgressPhase::kTimed);
  page->Started(5);
  page->Completed(4, 0);
  EXPECT_TRUE(beacon.Tick(t0));
  EXPECT_TRUE(watch.Poll(t0 + std::chrono::milliseconds(100)));
  EXPECT_EQ(watch.Last(1).completed, 4);
  EXPECT_EQ(watch.Last(1).started, 5);
  EXPECT_EQ(watch.Last(1).phase, ProgressPhase::kTimed);
  EXPECT_EQ(watch.Last(0).pid, 0);  // rank 0 published nothing

  page->Completed(5, 0);
  EXPECT_FALSE(beacon.Tick(t0 + std::chrono::milliseconds(500)));  // within the period: waits
  EXPECT_FALSE(watch.Poll(t0 + std::chrono::milliseconds(600)));
  page->Started(6);
  EXPECT_TRUE(beacon.Tick(t0 + std::chrono::seconds(2)));
  EXPECT_TRUE(watch.Poll(t0 + std::chrono::seconds(2)));
  EXPECT_EQ(watch.Last(1).completed, 5);
  EXPECT_FALSE(beacon.Tick(t0 + std::chrono::seconds(4)));  // nothing changed: nothing published

  // Inside operation 6 since t0+2 s: stuck once that lasts longer than the limit.
  EXPECT_FALSE(watch.AnyStuckInsideAnOp(t0 + std::chrono::seconds(3), std::chrono::seconds(2)));
  EXPECT_TRUE(watch.AnyStuckInsideAnOp(t0 + std::chrono::seconds(5), std::chrono::seconds(2)));
  EXPECT_DOUBLE_EQ(watch.IdleSeconds(1, t0 + std::chrono::seconds(5)), 3.0);
}

TEST(ProgressBeaconTest, AnUnreadableBeatIsSkipped) {
  EXPECT_EQ(ProgressFromJson("not json").pid, 0);
  EXPECT_EQ(ProgressFromJson(R"({"rank": 1})").pid, 0);
  ProgressSnapshot s;
  s.rank = 2;
  s.pid = 42;
  s.host = "h<1>";
  s.point_index = 3;
  s.phase = ProgressPhase::kWarmup;
  s.started = 7;
  s.completed = 6;
  const ProgressSnapshot back = ProgressFromJson(ProgressToJson(s));
  EXPECT_EQ(back.pid, 42);
  EXPECT_EQ(back.host, "h<1>");
  EXPECT_EQ(back.point_index, 3);
  EXPECT_EQ(back.phase, ProgressPhase::kWarmup);
  EXPECT_EQ(back.started, 7);
  EXPECT_EQ(back.completed, 6);
}

}  // namespace
}  // namespace commbench
