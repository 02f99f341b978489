// What the per-point loop's clock covers, decided on the host before the loop from the backend's device and the
// sync axis. Pure data, so that each sync mode's plan is tested on hosts without a GPU.
//
// A CPU backend's Run() returns when its collective is complete: the clock goes around each iteration. A GPU
// backend's Run() under --sync none/event returns once the work is enqueued, so timing each call would time the
// enqueue; there the clock goes around a batch of Runs ended by one wait for the device, and the batch's time is
// divided over its iterations (as nccl-tests does). Under --sync stream/device Run() itself waits: per iteration.
#pragma once

#include <cstdint>
#include <string>

#include "lib/core/axes.h"

namespace commbench {

// The barrier a timed iteration ends with, inside the clock.
enum class BarrierScope { kNone, kGroup, kWorld };

struct TimingPlan {
  int64_t batch = 1;            // iterations between starting and stopping the clock (1: one sample each)
  bool wait_each_run = false;   // Work::Wait() after each Run, inside the clock (before the barrier)
  bool wait_for_batch = false;  // Work::Wait() once after the batch's last Run, inside the clock
  BarrierScope barrier = BarrierScope::kNone;
  // The input is set before every Run (outside the clock) when batch is 1; a batch sets it once before the
  // clock starts and reruns on it, as nccl-tests does (an in-place result then feeds the next Run: only
  // checked iterations, which run alone, are compared with the pattern).
};

// kGpuBatch: iterations per batch on a GPU under --sync none/event (nccl-tests' default -n 20).
constexpr int64_t kGpuBatch = 20;

TimingPlan PlanTiming(DeviceKind device, Sync sync, int64_t gpu_batch = kGpuBatch);

// One line for logs and tests: "batch=20 wait=batch barrier=none".
std::string Describe(const TimingPlan& plan);

}  // namespace commbench
