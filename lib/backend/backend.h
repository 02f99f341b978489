// Backend: one implementation of the collectives (gloo, nccl, native, mpi). A Backend connects a group's ranks
// into a Communicator once; the Communicator prepares a Work per point; the measure loop times Work::Run().
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lib/core/axes.h"
#include "lib/core/status.h"
#include "lib/core/types.h"
#include "lib/rendezvous/store.h"

namespace commbench {

// Where a rank sits (docs/design.md §5): world = groups x group_size; group g holds ranks [g*k, (g+1)*k).
struct RankPlace {
  int rank = 0;
  int world = 1;
  int group = 0;
  int group_rank = 0;
  int group_size = 1;
  int local_rank = 0;  // index among the ranks on this host (GPU choice, shm naming)
};

// One collective call, prepared once and run many times.
// Counts follow nccl-tests: `count` is the per-rank element count of the *smaller* buffer:
//   allreduce: send = recv = count; allgather: send = count, recv = count*n; reduce_scatter: send = count*n,
//   recv = count.
struct OpRequest {
  Collective op = Collective::kAllreduce;
  DataType dtype = DataType::kF32;
  ReduceOp reduce = ReduceOp::kSum;
  size_t count = 0;
  std::string algo = "auto";  // backend-specific name; "auto" lets the backend choose
  bool in_place = false;
  GpuAxes gpu;  // CPU backends run only the defaults (CheckCapabilities)
  // Ranks on this host running collectives at the same time as this one; 0 means all the ranks of the world.
  // Groups taking turns (--concurrency sequential) set their own group size: backends that choose how to wait
  // by how many ranks share the cores then wait as that group would alone.
  int concurrent_ranks = 0;
};

size_t SendCount(const OpRequest& r, int group_size);
size_t RecvCount(const OpRequest& r, int group_size);

// Prepared buffers and algorithm state for one point. Run() is the only timed call.
class Work {
 public:
  virtual ~Work() = default;
  // Copies the send buffer in (host memory, SendCount elements). Untimed; called before every Run().
  virtual Status SetInput(const void* host, size_t bytes) = 0;
  // SetInput of the bytes the previous SetInput set (`host` still holds them), after Runs that may have
  // overwritten the send buffer. A backend that keeps its own copy restores from it without reading the host's
  // bytes (a GPU's device-to-device copy instead of comparing or uploading 64 MiB between timed ops).
  virtual Status RestoreInput(const void* host, size_t bytes) { return SetInput(host, bytes); }
  // One collective; returns when its result is complete as far as this backend's sync strategy says.
  virtual Status Run() = 0;
  // Waits until every Run so far has completed on the device (GPU backends, whose Run may return once the work
  // is enqueued); a CPU backend's Run completes its collective, so there is nothing to wait for.
  virtual Status Wait() { return OkStatus(); }
  // Copies the receive buffer out (RecvCount elements). Untimed; called after the checked iterations.
  virtual Status GetOutput(void* host, size_t bytes) = 0;
  // The algorithm that actually runs (resolves "auto").
  virtual std::string algo() const = 0;
  // Device-side time of the last Run in microseconds (CUDA events), or a negative value where there is none.
  virtual double last_device_time_us() const { return -1; }
  // True where no peer can change this rank's receive buffer between the end of this rank's Run and the start of
  // its next one (it receives only inside its own Run, or into buffers of its own): a check may then read the
  // output without first holding the group at a barrier. False (the safe default) where a peer's next op may
  // write into it early, as Gloo's allgather ring does.
  virtual bool OutputHeldUntilNextRun() const { return false; }
  // True where Run leaves the send buffer as SetInput wrote it: a loop repeating one input then sets it once, and
  // whatever SetInput would wait for (peers still reading the previous op) is waited for inside Run, on the clock,
  // as in a user's loop. False (the safe default) where Run writes it, as every in-place op does.
  virtual bool KeepsInput() const { return false; }
};

// A group's connection, made once per (backend, group) and reused across points.
class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual StatusOr<std::unique_ptr<Work>> Prepare(const OpRequest& request) = 0;
  virtual Status Barrier() = 0;
  // The transport this connection actually moves bytes over, where the backend chooses at Connect (native: shm
  // when the group shares a host, else tcp). kUnknown, the default: as declared (BackendCapabilities::transport).
  virtual Transport transport() const { return Transport::kUnknown; }
  // Device memory this communicator took when it connected (the device's used memory after less before, by
  // cudaMemGetInfo; other users of the device in that time count too); -1 where the backend has no device or
  // did not measure it.
  virtual int64_t device_memory_bytes() const { return -1; }
};

struct ConnectRequest {
  RankPlace place;
  Store* store = nullptr;          // already prefixed per group: keys are private to this group
  std::string host = "127.0.0.1";  // address to bind and advertise (TCP-based transports)
  std::string iface;               // interface name; wins over host when set
  std::chrono::milliseconds timeout{30000};
};

// How an algorithm describes itself (UCC-style), for `commbench env` and `--algos`.
struct AlgorithmInfo {
  std::string name;
  Collective op;
  std::string description;  // one line
  std::string suits;        // the message range it suits, e.g. "< 64 KiB"
};

// How lib/traffic counts what a backend sends: its own schedules or algorithms exactly, or the textbook ring
// figure for one whose pattern is not modelled (NCCL, MPI).
enum class TrafficModel { kTextbook, kNativeSchedules, kGlooAlgorithms };

// What a backend can run, declared once: the planner, the --explain expansion and the shared check below read
// it, so that nothing tests a backend's name to learn what it can do.
struct BackendCapabilities {
  DeviceKind device = DeviceKind::kCpu;            // kGpu: the GPU axes (stream, h2d, graph, GPU syncs) apply
  Transport transport = Transport::kSharedMemory;  // within one host
  std::vector<DataType> dtypes = AllDataTypes();
  std::vector<Collective> in_place_ops = AllCollectives();      // collectives it runs in place
  std::vector<Collective> out_of_place_ops = AllCollectives();  // and out of place
  std::optional<Launcher> launcher;                             // the launcher its ranks must be started by; none: any
  bool one_rank_per_process = false;  // each rank a process of its own (an MPI rank): no --ranks-per-process > 1
  TrafficModel traffic_model = TrafficModel::kTextbook;
  // Its shared-memory transport counts the bytes it copies between peers (RankResult::peer_bytes_copied); another
  // backend's shared memory (Open MPI's vader) copies nothing commbench sees, so 0 would read as measured.
  bool counts_peer_copies = false;
  // The registered backend that runs the same algorithms over TCP alone, where this one chooses its transport
  // ("native-tcp" for native); empty where there is none.
  std::string tcp_twin;
};

// The checks every backend shares, in this order: the dtype, the GPU axes on a CPU backend, the placement.
// InvalidArgument with the skip note ("gloo has no bf16 type", "gloo runs on the CPU: --stream, --h2d and
// --graph do not apply", "gloo's allgather works out of place only").
Status CheckCapabilities(const std::string& backend, const BackendCapabilities& caps, const OpRequest& request);

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // OK, or Unavailable("<reason>") when this host cannot run it (no GPU, no library).
  virtual Status Available() const = 0;
  virtual std::vector<AlgorithmInfo> Algorithms() const = 0;
  // OK if this backend can run the request; otherwise InvalidArgument/Unavailable with the reason, which the
  // planner records as a skip note.
  virtual Status Supports(const OpRequest& request, int group_size) const = 0;
  virtual StatusOr<std::unique_ptr<Communicator>> Connect(const ConnectRequest& request) = 0;
  // Version string for the fingerprint ("gloo 0.5.0").
  virtual std::string Version() const = 0;
  virtual BackendCapabilities Capabilities() const = 0;
};

// Registry: backends register a factory from a static initialiser (their cc_library is alwayslink).
using BackendFactory = std::function<std::unique_ptr<Backend>()>;
bool RegisterBackend(const std::string& name, BackendFactory factory);
std::vector<std::string> RegisteredBackends();  // sorted
StatusOr<std::unique_ptr<Backend>> CreateBackend(const std::string& name);
// A registered backend's capabilities; an unknown name fails as CreateBackend does.
StatusOr<BackendCapabilities> CapabilitiesOf(const std::string& name);
// The registered names as a sentence's list: "gloo, mpi, native, native-tcp, nccl".
std::string RegisteredBackendList();

// What the planner needs to know of a backend, without linking it (tests describe fakes).
struct BackendDescription {
  std::string name;
  Status available;  // OK, or why this host cannot run it
  BackendCapabilities capabilities;
  std::vector<AlgorithmInfo> algorithms;
  std::function<Status(const OpRequest& request, int group_size)> supports;  // Backend::Supports
};

// The registered backends of these names, in this order; an unknown name fails as CreateBackend does.
StatusOr<std::vector<BackendDescription>> DescribeRegisteredBackends(const std::vector<std::string>& names);

}  // namespace commbench
