// What a GPU point does, decided on the host before any CUDA call: the parsed stream / h2d / sync / graph axes,
// the combinations that cannot run (and why), and the per-iteration schedule that follows from them. Pure C++ so
// that the planner, the CLI and the tests use it on hosts without CUDA.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lib/backend/backend.h"
#include "lib/core/status.h"

namespace commbench::cuda {

// The stream the per-iteration input copy and the collective run on.
enum class StreamKind {
  kLegacyDefault,  // cudaStreamLegacy: implicitly synchronises with every blocking stream of the device
  kPerThread,      // cudaStreamPerThread: one default stream per host thread
  kDedicated,      // a non-blocking stream the communicator creates (what nccl-tests and a fixed PyTorch use)
};

// The per-iteration host-to-device copy of scenario B (the minibatch), independent of the collective's buffers.
enum class H2dKind {
  kNone,
  kPageable,  // malloc'd host memory: cudaMemcpyAsync stages it and blocks the host
  kPinned,    // cudaMallocHost memory: the copy is truly asynchronous
};

// What the host does after enqueueing an iteration. The barrier kinds are the measure loop's business; on the
// device they behave like kNone (the backend's Barrier() then waits for the communicator).
enum class SyncKind {
  kStream,  // cudaStreamSynchronize every iteration
  kEvent,   // record an event that the next iteration's stream waits on; the host waits only in GetOutput
  kDevice,  // cudaDeviceSynchronize every iteration
  kNone,    // nothing until GetOutput
  kGroupBarrier,
  kWorldBarrier,
};

std::string_view Name(StreamKind k);
std::string_view Name(H2dKind k);
std::string_view Name(SyncKind k);

// Parsers accept exactly the names above ("legacy-default", "per-thread", "dedicated"; "none", "pageable",
// "pinned"; "stream", "event", "device", "none", "group-barrier", "world-barrier") and list them on error.
StatusOr<StreamKind> ParseStreamKind(std::string_view s);
StatusOr<H2dKind> ParseH2dKind(std::string_view s);
StatusOr<SyncKind> ParseSyncKind(std::string_view s);

const std::vector<StreamKind>& AllStreamKinds();
const std::vector<H2dKind>& AllH2dKinds();
const std::vector<SyncKind>& AllSyncKinds();

// True for the sync values only GPU backends honour (stream, event, device); CPU backends skip those points.
bool IsGpuOnlySync(std::string_view sync);

// The GPU axes of one point, parsed and checked together.
struct GpuPlan {
  StreamKind stream = StreamKind::kDedicated;
  H2dKind h2d = H2dKind::kNone;
  uint64_t h2d_bytes = 0;
  SyncKind sync = SyncKind::kNone;
  bool graph = false;
};

// Parses every field and rejects combinations that cannot run, with the reason as the planner's skip note: a CUDA
// graph cannot be captured on the legacy default stream, nor can it capture a copy from pageable memory.
// h2d_bytes is kept as given; with h2d none it is ignored (a sweep sets it on every point of the product).
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
IterationSchedule ScheduleFor(SyncKind sync);

// One line for the result file and skip notes: "stream=dedicated h2d=pinned:1048576 sync=event graph=off"
// (h2d=pinned:auto when the copy takes the message size).
std::string Describe(const GpuPlan& plan);

// The H2D workload's source bytes: a fixed, position-dependent pattern, so that a copy that did not happen (or
// copied the wrong range) shows when the destination is read back.
void FillH2dSource(void* data, size_t bytes);
// OK, or DataLoss naming the first differing byte offset and how many bytes differ.
Status CheckH2dCopy(const void* data, size_t bytes);

}  // namespace commbench::cuda
