// The sweep's axes other than collective, dtype and reduction (lib/core/types.h): one enum each, with one name
// table each (axes.cc). The names are what flags accept and what JSON files and the HTML report hold.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "lib/core/status.h"

namespace commbench {

// What the host waits for after each iteration. The barriers apply to every backend (the measure loop runs
// them); stream, event and device only to GPU backends (see lib/cuda/plan.h).
enum class Sync {
  kNone,
  kGroupBarrier,
  kWorldBarrier,
  kStream,  // cudaStreamSynchronize every iteration
  kEvent,   // an event the next iteration's stream waits on; the host waits only for the output
  kDevice,  // cudaDeviceSynchronize every iteration
};
// All groups at once, or one group at a time (the shared-bandwidth A/B).
enum class Concurrency { kConcurrent, kSequential };
enum class Pin { kNone, kCompact, kSpread };
// kAuto: each backend's natural placement.
enum class InPlace { kAuto, kYes, kNo };
enum class Launcher { kLocal, kMpirun, kSrun };
// How a launch's ranks form groups: consecutive ranks; the ranks of one host together; or consecutive members on
// different hosts (a pair spans two hosts).
enum class GroupBy { kConsecutive, kHost, kSpread };
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
// Where a backend's buffers live: on a GPU the GPU axes (stream, h2d, graph, the GPU syncs) apply.
enum class DeviceKind { kCpu, kGpu };
// How a group's ranks move bytes on one host: the peak its bandwidth is read against. kUnknown in files
// written before the point recorded it.
enum class Transport { kUnknown, kSharedMemory, kTcp, kDevice };

std::string_view Name(Sync v);
std::string_view Name(Concurrency v);
std::string_view Name(Pin v);
std::string_view Name(InPlace v);
std::string_view Name(Launcher v);
std::string_view Name(GroupBy v);
std::string_view Name(StreamKind v);
std::string_view Name(H2dKind v);
std::string_view Name(DeviceKind v);
std::string_view Name(Transport v);
// --graph: "off" or "on".
std::string_view GraphName(bool graph);

// Each accepts exactly the names above; the error reads "<what> '<value>' (accepted: a, b, c)", where `what`
// defaults to the flag's "--sync: unknown value".
StatusOr<Sync> ParseSync(std::string_view s, std::string_view what = "--sync: unknown value");
StatusOr<Concurrency> ParseConcurrency(std::string_view s, std::string_view what = "--concurrency: unknown value");
StatusOr<Pin> ParsePin(std::string_view s, std::string_view what = "--pin: unknown value");
StatusOr<InPlace> ParseInPlace(std::string_view s, std::string_view what = "--in-place: unknown value");
StatusOr<Launcher> ParseLauncher(std::string_view s, std::string_view what = "--launcher: unknown value");
StatusOr<GroupBy> ParseGroupBy(std::string_view s, std::string_view what = "--group-by: unknown value");
StatusOr<StreamKind> ParseStreamKind(std::string_view s, std::string_view what = "--stream: unknown value");
StatusOr<H2dKind> ParseH2dKind(std::string_view s, std::string_view what = "--h2d: unknown value");
StatusOr<DeviceKind> ParseDeviceKind(std::string_view s, std::string_view what = "unknown device kind");
StatusOr<Transport> ParseTransport(std::string_view s, std::string_view what = "unknown transport");
StatusOr<bool> ParseGraph(std::string_view s, std::string_view what = "--graph: unknown value");

const std::vector<Sync>& AllSyncs();
const std::vector<StreamKind>& AllStreamKinds();
const std::vector<H2dKind>& AllH2dKinds();

// True for the syncs only GPU backends honour (stream, event, device).
bool IsGpuOnly(Sync sync);

// The GPU axes of one point. CPU backends run only the defaults (the planner skips other values with a note;
// nothing is reinterpreted).
struct GpuAxes {
  StreamKind stream = StreamKind::kDedicated;
  H2dKind h2d = H2dKind::kNone;
  uint64_t h2d_bytes = 0;
  Sync sync = Sync::kNone;  // a GPU sync, or kNone (the measure loop runs the barriers)
  bool graph = false;
};

}  // namespace commbench
