// What a GPU point does, decided on the host before any CUDA call: the stream / h2d / sync / graph axes,
// the combinations that cannot run (and why), and the per-iteration schedule that follows from them. Pure C++ so
// that the planner, the CLI and the tests use it on hosts without CUDA.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "lib/core/axes.h"
#include "lib/core/status.h"

namespace commbench::cuda {

// The GPU axes of one point once checked together (the axes themselves are lib/core/axes.h).
using GpuPlan = GpuAxes;

// Rejects combinations that cannot run, with the reason as the planner's skip note: a CUDA graph cannot be
// captured on the legacy default stream, nor can it capture a copy from pageable memory. h2d_bytes is kept as
// given; with h2d none it is ignored (a sweep sets it on every point of the product).
StatusOr<GpuPlan> MakeGpuPlan(const GpuAxes& axes);

// The bytes the per-iteration copy moves: 0 without a copy; h2d_bytes when given; otherwise (h2d_bytes 0, the
// sweep's default) the point's own message size, so that `--h2d pinned` alone means "a minibatch as large as
// the gradients".
uint64_t EffectiveH2dBytes(const GpuPlan& plan, uint64_t message_bytes);

// What one Run() does on the host once the collective is enqueued, and what it waits for first.
struct IterationSchedule {
  bool wait_previous_event = false;  // cudaStreamWaitEvent on the previous iteration's event before enqueueing
  bool record_done_event = false;    // cudaEventRecord after the collective
  bool stream_sync = false;          // cudaStreamSynchronize
  bool device_sync = false;          // cudaDeviceSynchronize
  bool host_waits() const { return stream_sync || device_sync; }
};
IterationSchedule ScheduleFor(Sync sync);

// One line for the result file and skip notes: "stream=dedicated h2d=pinned:1048576 sync=event graph=off"
// (h2d=pinned:auto when the copy takes the message size).
std::string Describe(const GpuPlan& plan);

// The H2D workload's source bytes: a fixed, position-dependent pattern, so that a copy that did not happen (or
// copied the wrong range) shows when the destination is read back.
void FillH2dSource(void* data, size_t bytes);
// OK, or DataLoss naming the first differing byte offset and how many bytes differ.
Status CheckH2dCopy(const void* data, size_t bytes);

}  // namespace commbench::cuda
