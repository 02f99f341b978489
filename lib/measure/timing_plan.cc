#include "lib/measure/timing_plan.h"

#include <algorithm>

namespace commbench {

TimingPlan PlanTiming(DeviceKind device, Sync sync, int64_t gpu_batch) {
  TimingPlan plan;
  if (sync == Sync::kGroupBarrier) plan.barrier = BarrierScope::kGroup;
  if (sync == Sync::kWorldBarrier) plan.barrier = BarrierScope::kWorld;
  if (device == DeviceKind::kCpu) return plan;  // Run() completes the collective
  switch (sync) {
    case Sync::kStream:
    case Sync::kDevice:
      break;  // Run() waits for the device itself
    case Sync::kNone:
    case Sync::kEvent:
      plan.batch = std::max<int64_t>(gpu_batch, 1);
      plan.wait_for_batch = true;
      break;
    case Sync::kGroupBarrier:
    case Sync::kWorldBarrier:
      plan.wait_each_run = true;  // the barrier follows completed work, not its enqueue
      break;
  }
  return plan;
}

std::string Describe(const TimingPlan& plan) {
  const char* wait = plan.wait_each_run ? "each" : plan.wait_for_batch ? "batch" : "none";
  const char* barrier = plan.barrier == BarrierScope::kGroup   ? "group"
                        : plan.barrier == BarrierScope::kWorld ? "world"
                                                               : "none";
  return "batch=" + std::to_string(plan.batch) + " wait=" + wait + " barrier=" + barrier;
}

}  // namespace commbench
