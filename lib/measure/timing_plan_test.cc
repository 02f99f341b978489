#include "lib/measure/timing_plan.h"

#include <gtest/gtest.h>

namespace commbench {
namespace {

TEST(TimingPlanTest, CpuBackendsTimeEachIteration) {
  for (Sync sync : {Sync::kNone, Sync::kStream, Sync::kEvent, Sync::kDevice}) {
    EXPECT_EQ(Describe(PlanTiming(DeviceKind::kCpu, sync)), "batch=1 wait=none barrier=none") << Name(sync);
  }
  EXPECT_EQ(Describe(PlanTiming(DeviceKind::kCpu, Sync::kGroupBarrier)), "batch=1 wait=none barrier=group");
  EXPECT_EQ(Describe(PlanTiming(DeviceKind::kCpu, Sync::kWorldBarrier)), "batch=1 wait=none barrier=world");
}

// --sync none/event enqueue without waiting: the clock must end with a wait for the device, over a batch.
TEST(TimingPlanTest, GpuSyncNoneTimesABatchEndedByOneWait) {
  TimingPlan plan = PlanTiming(DeviceKind::kGpu, Sync::kNone);
  EXPECT_EQ(plan.batch, kGpuBatch);
  EXPECT_TRUE(plan.wait_for_batch);
  EXPECT_FALSE(plan.wait_each_run);
  EXPECT_EQ(plan.barrier, BarrierScope::kNone);
}

TEST(TimingPlanTest, GpuSyncEventTimesABatchEndedByOneWait) {
  EXPECT_EQ(Describe(PlanTiming(DeviceKind::kGpu, Sync::kEvent)), "batch=20 wait=batch barrier=none");
  EXPECT_EQ(Describe(PlanTiming(DeviceKind::kGpu, Sync::kEvent, 5)), "batch=5 wait=batch barrier=none");
  EXPECT_EQ(PlanTiming(DeviceKind::kGpu, Sync::kEvent, 0).batch, 1);
}

// Run() waits for the stream or the device itself: per iteration, nothing added.
TEST(TimingPlanTest, GpuSyncStreamTimesEachIteration) {
  EXPECT_EQ(Describe(PlanTiming(DeviceKind::kGpu, Sync::kStream)), "batch=1 wait=none barrier=none");
}

TEST(TimingPlanTest, GpuSyncDeviceTimesEachIteration) {
  EXPECT_EQ(Describe(PlanTiming(DeviceKind::kGpu, Sync::kDevice)), "batch=1 wait=none barrier=none");
}

// A host barrier after an enqueue would not wait for the work: the work is waited for first, inside the clock.
TEST(TimingPlanTest, GpuBarrierSyncsWaitForTheWorkBeforeTheBarrier) {
  EXPECT_EQ(Describe(PlanTiming(DeviceKind::kGpu, Sync::kGroupBarrier)), "batch=1 wait=each barrier=group");
  EXPECT_EQ(Describe(PlanTiming(DeviceKind::kGpu, Sync::kWorldBarrier)), "batch=1 wait=each barrier=world");
}

}  // namespace
}  // namespace commbench
