// The nccl backend: one NCCL communicator per group (ncclCommInitRankConfig, the unique id through the group's
// store), collectives on device buffers, and the GPU axes of lib/cuda/plan.h that reproduce reference scenario B.
//
// One Run() enqueues, on the chosen stream: [wait for the previous iteration's event] start event, the H2D copy
// (if any), the collective, end event [, done event]; then the host does what the sync axis says. With --graph
// the copy and the collective are one CUDA graph launch. Device time is end - start: what Run() enqueued.
//
// Communicators are non-blocking (config.blocking = 0) so that a missing peer during initialisation times out
// instead of hanging, and a watchdog thread per communicator polls ncclCommGetAsyncError and the age of the
// current call, and calls ncclCommAbort (which releases blocked waits) on an error or a timeout.
#include <chrono>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lib/backend/backend.h"
#include "lib/backend/nccl/nccl_include.h"
#include "lib/backend/nccl/nccl_types.h"
#include "lib/backend/nccl/support.h"
#include "lib/backend/nccl/unique_id.h"
#include "lib/backend/nccl/versions.h"
#include "lib/backend/nccl/watchdog.h"
#include "lib/cuda/h2d.h"
#include "lib/cuda/plan.h"
#include "lib/cuda/runtime.h"

namespace commbench::nccl {
namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;

Status FromNccl(ncclResult_t r, ncclComm_t comm, const std::string& what) { return FromNcclResult(r, comm, what); }

// Non-blocking communicators may answer ncclInProgress; the call has then completed once the communicator's
// state leaves ncclInProgress. `interval` 0 spins (collectives: microseconds); init and finalize sleep.
Status Settle(ncclComm_t comm, ncclResult_t r, const std::string& what, milliseconds timeout, microseconds interval) {
  if (r != ncclInProgress) return FromNccl(r, comm, what);
  ncclResult_t state = ncclInProgress;
  RETURN_IF_ERROR(PollUntil(
      [&]() -> StatusOr<bool> {
        ncclResult_t q = ncclCommGetAsyncError(comm, &state);
        if (q != ncclSuccess) return FromNccl(q, comm, "ncclCommGetAsyncError");
        return state != ncclInProgress;
      },
      timeout, interval, what));
  return FromNccl(state, comm, what);
}

// What a communicator and its Works share. Owned jointly (shared_ptr), so that the NCCL communicator outlives
// every Work prepared on it whatever order the caller destroys them in.
struct CommState {
  ncclComm_t comm = nullptr;
  int device = 0;
  RankPlace place;
  std::string who;  // "nccl rank 3 (group 1, group rank 1, GPU 0)"
  milliseconds timeout{30000};
  std::optional<cuda::Stream> dedicated;  // the communicator's own stream (--stream dedicated, Barrier)
  cuda::DeviceBuffer barrier_buffer;
  std::unique_ptr<Watchdog> watchdog;
  int64_t device_memory_bytes = -1;  // what connecting took on the device (Communicator::device_memory_bytes)

  ~CommState() {
    const bool aborted = watchdog && watchdog->aborted();
    watchdog.reset();                        // nothing aborts the communicator behind our back from here on
    if (aborted || comm == nullptr) return;  // ncclCommAbort already freed it
    (void)cuda::SetDevice(device);
    Status finalized = Settle(comm, ncclCommFinalize(comm), "ncclCommFinalize", timeout, milliseconds(1));
    if (finalized.ok()) {
      ncclCommDestroy(comm);
    } else {
      ncclCommAbort(comm);
    }
  }

  // The watchdog's reason when it aborted the communicator (more telling than the error the released call
  // returned), else `s` with the rank in front.
  Status Outcome(Status s) const {
    if (watchdog->aborted()) return watchdog->failure();
    if (!s.ok()) return Status(s.code(), who + ": " + s.message());
    return s;
  }
};

class NcclWork : public Work {
 public:
  static StatusOr<std::unique_ptr<Work>> Create(std::shared_ptr<CommState> state, const OpRequest& request) {
    RETURN_IF_ERROR(NcclSupports(request, state->place.group_size));
    ASSIGN_OR_RETURN(cuda::GpuPlan plan, cuda::MakeGpuPlan(request.gpu));
    auto work = std::unique_ptr<NcclWork>(new NcclWork(std::move(state), request, plan));
    RETURN_IF_ERROR(work->state_->Outcome(work->Init()));
    return std::unique_ptr<Work>(std::move(work));
  }

  ~NcclWork() override {
    // Buffers must not be freed under a running collective; cudaFree would wait anyway, but not for a hung one.
    if (stream_ != nullptr && !state_->watchdog->aborted()) {
      auto scope = state_->watchdog->Guard("draining " + call_ + " before freeing its buffers");
      (void)stream_->Synchronize();
    }
  }

  Status SetInput(const void* host, size_t bytes) override {
    if (bytes != send_bytes_) {
      return InvalidArgument(state_->who + ": SetInput got " + std::to_string(bytes) + " B, " + call_ + " sends " +
                             std::to_string(send_bytes_) + " B");
    }
    if (state_->watchdog->aborted()) return state_->watchdog->failure();
    return state_->Outcome(Upload(host));
  }

  // The loop's shared middle input again: the device still holds it (out-of-place) or keeps a copy to restore
  // it from (in-place), so the host's bytes are neither compared nor copied.
  Status RestoreInput(const void* host, size_t bytes) override {
    if (!uploaded_ || bytes != send_bytes_) return SetInput(host, bytes);  // SetInput names a size mismatch
    if (state_->watchdog->aborted()) return state_->watchdog->failure();
    return state_->Outcome(Restore());
  }

  // Out-of-place, Run reads the send buffer and writes another one.
  bool KeepsInput() const override { return !request_.in_place; }

  Status Run() override {
    if (state_->watchdog->aborted()) return state_->watchdog->failure();
    auto scope = state_->watchdog->Guard(call_);
    return state_->Outcome(RunOnce());
  }

  // The loop's clock ends with this under --sync none/event (lib/measure/timing_plan.h).
  Status Wait() override {
    if (state_->watchdog->aborted()) return state_->watchdog->failure();
    auto scope = state_->watchdog->Guard("waiting for " + call_);
    Status s = cuda::SetDevice(state_->device);
    if (s.ok()) s = stream_->Synchronize();
    return state_->Outcome(s);
  }

  Status GetOutput(void* host, size_t bytes) override {
    if (bytes != recv_bytes_) {
      return InvalidArgument(state_->who + ": GetOutput got " + std::to_string(bytes) + " B, " + call_ + " receives " +
                             std::to_string(recv_bytes_) + " B");
    }
    if (state_->watchdog->aborted()) return state_->watchdog->failure();
    auto scope = state_->watchdog->Guard("reading the output of " + call_);
    Status s = cuda::SetDevice(state_->device);
    if (s.ok()) s = cuda::CopyAsync(host, recv_ptr_, recv_bytes_, cuda::CopyKind::kDeviceToHost, *stream_);
    if (s.ok()) s = stream_->Synchronize();
    return state_->Outcome(s);
  }

  std::string algo() const override { return "auto"; }

  // The newest Run whose end event has completed: the latest one under --sync stream/device, an earlier one
  // while later ones are still queued (--sync event/none). Advances an index, so each Run costs one query.
  double last_device_time_us() const override {
    if (runs_ == 0 || state_->watchdog->aborted()) return -1;
    const uint64_t oldest = runs_ > kRing ? runs_ - kRing : 0;  // older slots have been recorded over
    if (completed_ < oldest) completed_ = oldest;
    while (completed_ < runs_) {
      auto done = ring_[completed_ % kRing].end.Done();
      if (!done.ok() || !*done) break;
      ++completed_;
    }
    if (completed_ == 0 || completed_ - 1 < oldest) return -1;
    const TimingPair& pair = ring_[(completed_ - 1) % kRing];
    auto ms = pair.end.MillisecondsSince(pair.start);
    return ms.ok() ? static_cast<double>(*ms) * 1000.0 : -1;
  }

 private:
  static constexpr uint64_t kRing = 256;  // timing event pairs in flight before a slot is reused
  struct TimingPair {
    cuda::Event start;
    cuda::Event end;
  };

  NcclWork(std::shared_ptr<CommState> state, const OpRequest& request, const cuda::GpuPlan& plan)
      : state_(std::move(state)),
        request_(request),
        plan_(plan),
        schedule_(cuda::ScheduleFor(plan.sync)),
        call_(DescribeCall(request, state_->place.group_size) + " (" + cuda::Describe(plan) + ")") {}

  Status Init() {
    RETURN_IF_ERROR(cuda::SetDevice(state_->device));
    if (plan_.stream == StreamKind::kDedicated) {
      stream_ = &*state_->dedicated;
    } else {
      ASSIGN_OR_RETURN(own_stream_, cuda::Stream::Create(plan_.stream));
      stream_ = &*own_stream_;
    }
    const int n = state_->place.group_size;
    const size_t elem = SizeOf(request_.dtype);
    send_bytes_ = SendCount(request_, n) * elem;
    recv_bytes_ = RecvCount(request_, n) * elem;
    if (request_.in_place) {
      // NCCL's in-place layouts: allgather sends from its own block of the receive buffer, reduce-scatter
      // receives into its own block of the send buffer.
      ASSIGN_OR_RETURN(main_, cuda::DeviceBuffer::Create(std::max(send_bytes_, recv_bytes_)));
      ASSIGN_OR_RETURN(master_, cuda::DeviceBuffer::Create(send_bytes_));
      char* base = static_cast<char*>(main_.data());
      const size_t own_block = static_cast<size_t>(state_->place.group_rank) * request_.count * elem;
      send_ptr_ = request_.op == Collective::kAllgather ? base + own_block : base;
      recv_ptr_ = request_.op == Collective::kReduceScatter ? base + own_block : base;
    } else {
      ASSIGN_OR_RETURN(main_, cuda::DeviceBuffer::Create(send_bytes_));
      ASSIGN_OR_RETURN(recv_, cuda::DeviceBuffer::Create(recv_bytes_));
      send_ptr_ = main_.data();
      recv_ptr_ = recv_.data();
    }
    ASSIGN_OR_RETURN(staging_, cuda::HostBuffer::Create(send_bytes_, /*pinned=*/true));
    const uint64_t message_bytes = std::max(send_bytes_, recv_bytes_);
    ASSIGN_OR_RETURN(h2d_, cuda::H2dWorkload::Create(plan_.h2d, cuda::EffectiveH2dBytes(plan_, message_bytes)));
    if (schedule_.record_done_event) {
      ASSIGN_OR_RETURN(cuda::Event done, cuda::Event::Create(false));
      done_.emplace(std::move(done));
    }
    ring_.reserve(kRing);
    for (uint64_t i = 0; i < kRing; ++i) {
      ASSIGN_OR_RETURN(cuda::Event start, cuda::Event::Create(true));
      ASSIGN_OR_RETURN(cuda::Event end, cuda::Event::Create(true));
      ring_.push_back({std::move(start), std::move(end)});
    }
    if (plan_.graph) {
      // One eager call first: NCCL sets up connections lazily on a communicator's first collective, host-side
      // work that has no place in a graph.
      RETURN_IF_ERROR(EnqueueCollective());
      {
        auto scope = state_->watchdog->Guard("warm-up before capturing " + call_);
        RETURN_IF_ERROR(stream_->Synchronize());
      }
      ASSIGN_OR_RETURN(cuda::Graph graph, cuda::Graph::Capture(*stream_, [this] {
                         RETURN_IF_ERROR(h2d_.Enqueue(*stream_));
                         return EnqueueCollective();
                       }));
      graph_.emplace(std::move(graph));
    }
    return OkStatus();
  }

  // Every input reaches the device through a pinned staging buffer, and the copy (with the in-place restore) has
  // ended when SetInput returns: the loop's clock starts after it, and a copy still running would be timed as
  // part of the first op. The loop sets each input once per unit and repeats the shared middle one with
  // RestoreInput, so no iteration pays for the host's bytes.
  Status Upload(const void* host) {
    RETURN_IF_ERROR(cuda::SetDevice(state_->device));
    std::memcpy(staging_.data(), host, send_bytes_);
    void* target = request_.in_place ? master_.data() : send_ptr_;
    RETURN_IF_ERROR(cuda::CopyAsync(target, staging_.data(), send_bytes_, cuda::CopyKind::kHostToDevice, *stream_));
    uploaded_ = true;
    return Restore();
  }

  // In-place, the collective overwrote the send block: one device-to-device copy from the kept input. Waits for
  // what the stream holds, so that the next op starts on a device with nothing of the input's left to do.
  Status Restore() {
    RETURN_IF_ERROR(cuda::SetDevice(state_->device));
    if (request_.in_place) {
      RETURN_IF_ERROR(
          cuda::CopyAsync(send_ptr_, master_.data(), send_bytes_, cuda::CopyKind::kDeviceToDevice, *stream_));
    }
    auto scope = state_->watchdog->Guard("waiting for the input copy of " + call_);
    return stream_->Synchronize();
  }

  Status RunOnce() {
    RETURN_IF_ERROR(cuda::SetDevice(state_->device));  // per host thread; cheap when already current
    if (schedule_.wait_previous_event && has_done_) RETURN_IF_ERROR(done_->MakeStreamWait(*stream_));
    TimingPair& pair = ring_[runs_ % kRing];
    RETURN_IF_ERROR(pair.start.Record(*stream_));
    if (graph_) {
      RETURN_IF_ERROR(graph_->Launch(*stream_));
    } else {
      RETURN_IF_ERROR(h2d_.Enqueue(*stream_));
      RETURN_IF_ERROR(EnqueueCollective());
    }
    RETURN_IF_ERROR(pair.end.Record(*stream_));
    ++runs_;
    if (schedule_.record_done_event) {
      RETURN_IF_ERROR(done_->Record(*stream_));
      has_done_ = true;
    }
    if (schedule_.stream_sync) RETURN_IF_ERROR(stream_->Synchronize());
    if (schedule_.device_sync) RETURN_IF_ERROR(cuda::DeviceSynchronize());
    return OkStatus();
  }

  Status EnqueueCollective() {
    auto stream = static_cast<cudaStream_t>(stream_->handle());
    auto dtype = static_cast<ncclDataType_t>(ToNcclDataType(request_.dtype));
    auto op = static_cast<ncclRedOp_t>(ToNcclRedOp(request_.reduce));
    ncclResult_t r = ncclInvalidUsage;
    switch (request_.op) {
      case Collective::kAllreduce:
        r = ncclAllReduce(send_ptr_, recv_ptr_, request_.count, dtype, op, state_->comm, stream);
        break;
      case Collective::kAllgather:
        r = ncclAllGather(send_ptr_, recv_ptr_, request_.count, dtype, state_->comm, stream);
        break;
      case Collective::kReduceScatter:
        r = ncclReduceScatter(send_ptr_, recv_ptr_, request_.count, dtype, op, state_->comm, stream);
        break;
    }
    return Settle(state_->comm, r, call_, state_->timeout, microseconds(0));
  }

  std::shared_ptr<CommState> state_;
  const OpRequest request_;
  const cuda::GpuPlan plan_;
  const cuda::IterationSchedule schedule_;
  const std::string call_;  // "allreduce f32 sum 4096 B out-of-place (stream=... sync=...)"

  std::optional<cuda::Stream> own_stream_;  // legacy-default / per-thread handles
  const cuda::Stream* stream_ = nullptr;
  size_t send_bytes_ = 0;
  size_t recv_bytes_ = 0;
  cuda::DeviceBuffer main_;    // send buffer (out-of-place) or the one buffer (in-place)
  cuda::DeviceBuffer recv_;    // out-of-place only
  cuda::DeviceBuffer master_;  // in-place only: the input, restored into the send block before each Run
  void* send_ptr_ = nullptr;
  void* recv_ptr_ = nullptr;

  cuda::HostBuffer staging_;  // pinned: the input's way to the device
  bool uploaded_ = false;

  cuda::H2dWorkload h2d_;
  std::optional<cuda::Event> done_;
  bool has_done_ = false;
  std::vector<TimingPair> ring_;
  uint64_t runs_ = 0;
  mutable uint64_t completed_ = 0;  // runs known complete (last_device_time_us)
  std::optional<cuda::Graph> graph_;
};

class NcclCommunicator : public Communicator {
 public:
  explicit NcclCommunicator(std::shared_ptr<CommState> state) : state_(std::move(state)) {}
  int64_t device_memory_bytes() const override { return state_->device_memory_bytes; }

  StatusOr<std::unique_ptr<Work>> Prepare(const OpRequest& request) override {
    if (state_->watchdog->aborted()) return state_->watchdog->failure();
    return NcclWork::Create(state_, request);
  }

  // NCCL has no barrier: a one-element allreduce on the communicator's stream, waited for on the host.
  Status Barrier() override {
    if (state_->watchdog->aborted()) return state_->watchdog->failure();
    auto scope = state_->watchdog->Guard("barrier (one-element allreduce)");
    Status s = cuda::SetDevice(state_->device);
    if (s.ok()) {
      void* buf = state_->barrier_buffer.data();
      s = Settle(state_->comm,
                 ncclAllReduce(buf, buf, 1, ncclInt32, ncclSum, state_->comm,
                               static_cast<cudaStream_t>(state_->dedicated->handle())),
                 "barrier", state_->timeout, microseconds(0));
    }
    if (s.ok()) s = state_->dedicated->Synchronize();
    return state_->Outcome(s);
  }

 private:
  std::shared_ptr<CommState> state_;
};

class NcclBackend : public Backend {
 public:
  std::string name() const override { return kBackendName; }

  Status Available() const override { return cuda::DeviceUsable(); }

  std::vector<AlgorithmInfo> Algorithms() const override { return NcclAlgorithms(); }
  BackendCapabilities Capabilities() const override { return NcclCapabilities(); }

  Status Supports(const OpRequest& request, int group_size) const override { return NcclSupports(request, group_size); }

  StatusOr<std::unique_ptr<Communicator>> Connect(const ConnectRequest& request) override {
    RETURN_IF_ERROR(Available());
    const RankPlace& p = request.place;
    auto state = std::make_shared<CommState>();
    const int devices = cuda::DeviceCount();
    state->device = p.local_rank % devices;
    state->place = p;
    state->timeout = request.timeout;
    state->who = "nccl rank " + std::to_string(p.rank) + " (group " + std::to_string(p.group) + ", group rank " +
                 std::to_string(p.group_rank) + ", GPU " + std::to_string(state->device) + ")";
    auto fail = [&](const Status& s) { return Status(s.code(), state->who + ": " + s.message()); };
    Status set = cuda::SetDevice(state->device);
    if (!set.ok()) return fail(set);
    // After SetDevice, which makes the primary context: what the communicator itself allocates (issue 52).
    const StatusOr<int64_t> used_before = cuda::DeviceMemoryUsedBytes();

    auto id_bytes = ExchangeUniqueId(
        request.store, p.group_rank,
        [&]() -> StatusOr<std::vector<char>> {
          ncclUniqueId id;
          RETURN_IF_ERROR(FromNccl(ncclGetUniqueId(&id), nullptr, "ncclGetUniqueId"));
          return std::vector<char>(id.internal, id.internal + sizeof(id.internal));
        },
        sizeof(ncclUniqueId), request.timeout);
    if (!id_bytes.ok()) return fail(id_bytes.status());
    ncclUniqueId id;
    std::memcpy(id.internal, id_bytes->data(), sizeof(id.internal));

    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    const std::string comm_name = "commbench-group" + std::to_string(p.group);
    config.commName = comm_name.c_str();
    ncclComm_t comm = nullptr;
    const std::string what = "ncclCommInitRankConfig(" + std::to_string(p.group_size) + " ranks)";
    ncclResult_t r = ncclCommInitRankConfig(&comm, p.group_size, id, p.group_rank, &config);
    Status init =
        comm == nullptr ? FromNccl(r, nullptr, what) : Settle(comm, r, what, request.timeout, milliseconds(1));
    if (!init.ok()) {
      if (comm != nullptr) ncclCommAbort(comm);
      std::string hint;
      if (p.group_size > devices) {
        hint = " (this host has " + std::to_string(devices) +
               " GPU(s) and NCCL refuses two ranks of one communicator on the same GPU: use a group size of at "
               "most the GPUs per host)";
      }
      return fail(Status(init.code(), init.message() + hint + "; communicator aborted"));
    }
    state->comm = comm;
    // From here CommState's destructor owns the communicator.
    Watchdog::Options options;
    options.who = state->who;
    options.timeout = request.timeout;
    state->watchdog = std::make_unique<Watchdog>(
        options,
        [comm]() -> Status {
          ncclResult_t e = ncclSuccess;
          ncclResult_t q = ncclCommGetAsyncError(comm, &e);
          if (q != ncclSuccess) return FromNccl(q, comm, "ncclCommGetAsyncError");
          if (e == ncclSuccess || e == ncclInProgress) return OkStatus();
          return FromNccl(e, comm, "NCCL");
        },
        [comm] { ncclCommAbort(comm); });
    auto dedicated = cuda::Stream::Create(StreamKind::kDedicated);
    if (!dedicated.ok()) return fail(dedicated.status());
    state->dedicated.emplace(std::move(dedicated).value());
    auto barrier = cuda::DeviceBuffer::Create(sizeof(int32_t));
    if (!barrier.ok()) return fail(barrier.status());
    state->barrier_buffer = std::move(barrier).value();
    const StatusOr<int64_t> used_after = cuda::DeviceMemoryUsedBytes();
    if (used_before.ok() && used_after.ok())
      state->device_memory_bytes = std::max<int64_t>(*used_after - *used_before, 0);
    return std::unique_ptr<Communicator>(new NcclCommunicator(std::move(state)));
  }

  std::string Version() const override {
    int code = 0;
    if (ncclGetVersion(&code) != ncclSuccess) return "nccl (version unknown)";
    return "nccl " + NcclVersionString(code);
  }
};

[[maybe_unused]] const bool kRegistered = RegisterBackend(kBackendName, [] { return std::make_unique<NcclBackend>(); });

}  // namespace
}  // namespace commbench::nccl
