#include "lib/cuda/plan.h"

#include <gtest/gtest.h>

#include <vector>

namespace commbench::cuda {
namespace {

GpuAxes Axes(StreamKind stream, H2dKind h2d, uint64_t bytes, Sync sync, bool graph = false) {
  GpuAxes a;
  a.stream = stream;
  a.h2d = h2d;
  a.h2d_bytes = bytes;
  a.sync = sync;
  a.graph = graph;
  return a;
}

// The names and their errors: lib/core/axes_test.cc.

TEST(PlanTest, DefaultAxesMakeTheDefaultPlan) {
  auto plan = MakeGpuPlan(GpuAxes{});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->stream, StreamKind::kDedicated);
  EXPECT_EQ(plan->h2d, H2dKind::kNone);
  EXPECT_EQ(plan->sync, Sync::kNone);
  EXPECT_FALSE(plan->graph);
  EXPECT_EQ(Describe(*plan), "stream=dedicated h2d=none sync=none graph=off");
}

TEST(PlanTest, ScenarioBPlansParse) {
  auto slow = MakeGpuPlan(Axes(StreamKind::kLegacyDefault, H2dKind::kPageable, 4 << 20, Sync::kStream));
  ASSERT_TRUE(slow.ok()) << slow.status().message();
  EXPECT_EQ(slow->stream, StreamKind::kLegacyDefault);
  EXPECT_EQ(slow->h2d, H2dKind::kPageable);
  EXPECT_EQ(slow->h2d_bytes, 4u << 20);
  EXPECT_EQ(Describe(*slow), "stream=legacy-default h2d=pageable:4194304 sync=stream graph=off");
  auto fast = MakeGpuPlan(Axes(StreamKind::kDedicated, H2dKind::kPinned, 4 << 20, Sync::kEvent, true));
  ASSERT_TRUE(fast.ok()) << fast.status().message();
  EXPECT_TRUE(fast->graph);
  EXPECT_EQ(Describe(*fast), "stream=dedicated h2d=pinned:4194304 sync=event graph=on");
}

TEST(PlanTest, H2dBytesDefaultToTheMessageSize) {
  auto sized = MakeGpuPlan(Axes(StreamKind::kDedicated, H2dKind::kPinned, 64, Sync::kNone));
  ASSERT_TRUE(sized.ok());
  EXPECT_EQ(EffectiveH2dBytes(*sized, 1 << 20), 64u);
  auto automatic = MakeGpuPlan(Axes(StreamKind::kDedicated, H2dKind::kPageable, 0, Sync::kNone));
  ASSERT_TRUE(automatic.ok());
  EXPECT_EQ(EffectiveH2dBytes(*automatic, 1 << 20), 1u << 20);
  EXPECT_EQ(Describe(*automatic), "stream=dedicated h2d=pageable:auto sync=none graph=off");
  // The sweep sets --h2d-bytes on every point, h2d=none ones included: no copy, and no skip either.
  auto none = MakeGpuPlan(Axes(StreamKind::kDedicated, H2dKind::kNone, 64, Sync::kNone));
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(EffectiveH2dBytes(*none, 1 << 20), 0u);
  EXPECT_EQ(Describe(*none), "stream=dedicated h2d=none sync=none graph=off");
}

TEST(PlanTest, GraphRefusesWhatCudaCannotCapture) {
  auto legacy = MakeGpuPlan(Axes(StreamKind::kLegacyDefault, H2dKind::kNone, 0, Sync::kStream, true));
  ASSERT_FALSE(legacy.ok());
  EXPECT_NE(legacy.status().message().find("legacy default stream"), std::string::npos);
  auto pageable = MakeGpuPlan(Axes(StreamKind::kPerThread, H2dKind::kPageable, 8, Sync::kStream, true));
  ASSERT_FALSE(pageable.ok());
  EXPECT_NE(pageable.status().message().find("pageable"), std::string::npos);
  EXPECT_TRUE(MakeGpuPlan(Axes(StreamKind::kPerThread, H2dKind::kPinned, 8, Sync::kDevice, true)).ok());
}

TEST(PlanTest, ScheduleFollowsSync) {
  IterationSchedule stream = ScheduleFor(Sync::kStream);
  EXPECT_TRUE(stream.stream_sync);
  EXPECT_FALSE(stream.device_sync);
  EXPECT_FALSE(stream.record_done_event);
  EXPECT_TRUE(stream.host_waits());

  IterationSchedule event = ScheduleFor(Sync::kEvent);
  EXPECT_TRUE(event.wait_previous_event);
  EXPECT_TRUE(event.record_done_event);
  EXPECT_FALSE(event.host_waits());

  EXPECT_TRUE(ScheduleFor(Sync::kDevice).device_sync);
  EXPECT_TRUE(ScheduleFor(Sync::kDevice).host_waits());
  for (Sync k : {Sync::kNone, Sync::kGroupBarrier, Sync::kWorldBarrier}) {
    IterationSchedule s = ScheduleFor(k);
    EXPECT_FALSE(s.host_waits() || s.record_done_event || s.wait_previous_event) << Name(k);
  }
}

TEST(PlanTest, H2dSourceChecksOut) {
  std::vector<unsigned char> buf(3000);
  FillH2dSource(buf.data(), buf.size());
  EXPECT_TRUE(CheckH2dCopy(buf.data(), buf.size()).ok());
}

TEST(PlanTest, H2dCheckFindsMissingAndShiftedCopies) {
  std::vector<unsigned char> buf(3000);
  FillH2dSource(buf.data(), buf.size());
  buf[1234] ^= 0xff;
  Status one = CheckH2dCopy(buf.data(), buf.size());
  EXPECT_EQ(one.code(), StatusCode::kDataLoss);
  EXPECT_NE(one.message().find("1 of 3000 bytes differ, first at offset 1234"), std::string::npos);

  // A copy shifted by 256 bytes (a wrong offset by one page-ish block) must not pass.
  std::vector<unsigned char> src(4096);
  FillH2dSource(src.data(), src.size());
  std::vector<unsigned char> shifted(src.begin() + 256, src.end());
  EXPECT_FALSE(CheckH2dCopy(shifted.data(), shifted.size()).ok());

  std::vector<unsigned char> zeros(100, 0);
  EXPECT_FALSE(CheckH2dCopy(zeros.data(), zeros.size()).ok());
}

}  // namespace
}  // namespace commbench::cuda
