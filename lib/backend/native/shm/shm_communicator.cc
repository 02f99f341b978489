#include "lib/backend/native/shm/shm_communicator.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>

#include "lib/backend/native/algorithm_choice.h"
#include "lib/backend/native/reduce.h"
#include "lib/backend/native/schedule.h"
#include "lib/backend/native/shm/flag.h"
#include "lib/backend/native/shm/segment.h"
#include "lib/backend/peer_copies.h"

namespace commbench {
namespace native {
namespace {

constexpr uint32_t kMagic = 0x636d6e31;  // "cmn1"
constexpr size_t kPage = 4096;

struct CtlHeader {
  uint32_t magic;
  uint32_t n;
  alignas(64) Flag attached;  // ranks that mapped the control segment (rank 0 unlinks it at n-1)
  Flag abort;                 // set by a rank that gave up, so the others stop waiting at once
};

struct RankSlot {
  Flag progress;  // op steps: base+1 at an op's start, +1 per step
  Flag barrier;
  Flag prepared;  // number of Works whose segment name is published below
  int32_t pid;
  uint32_t reserved;
  uint64_t bytes;
  char name[112];
};

// Header of a Work segment: how many peers have mapped it (its creator unlinks it at n-1).
struct WorkHeader {
  Flag attached;
};

size_t AlignUp(size_t v, size_t a) { return (v + a - 1) / a * a; }

bool ProcessGone(pid_t pid) {
  if (pid <= 0 || pid == getpid()) return false;
  if (kill(pid, 0) != 0) return errno == ESRCH;
  // A killed child stays a zombie until reaped: treat it as gone.
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  size_t paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() && (line[paren + 2] == 'Z' || line[paren + 2] == 'X');
}

class ShmCommunicator;

class ShmWork : public Work {
 public:
  ShmWork(ShmCommunicator* comm, const OpRequest& request, std::string algo, Schedule schedule)
      : comm_(comm), request_(request), algo_(std::move(algo)), schedule_(std::move(schedule)) {}

  Status Init();
  Status SetInput(const void* host, size_t bytes) override;
  Status Run() override;
  Status GetOutput(void* host, size_t bytes) override;
  std::string algo() const override { return algo_; }
  // Every pull writes this rank's own memory; peers only read it.
  bool OutputHeldUntilNextRun() const override { return true; }
  bool KeepsInput() const override { return !WritesInput(schedule_); }

 private:
  char* Address(const Loc& loc) const {
    return bases_[static_cast<size_t>(loc.rank)][static_cast<int>(loc.buf)] + loc.offset * esize_;
  }
  Status Fail(const Status& status, const std::string& what);

  ShmCommunicator* comm_;
  OpRequest request_;
  std::string algo_;
  Schedule schedule_;
  WaitPlan plan_;
  size_t esize_ = 0;
  Segment mine_;
  std::vector<Segment> peers_;
  std::vector<std::array<char*, kNumBufs>> bases_;
  std::vector<const void*> srcs_;  // scratch for the reduce call
  // [step][pull]: written with streaming stores (the destination's last write, in an op too large for the caches).
  std::vector<std::vector<bool>> stream_;
};

// Pieces below this keep ordinary stores, whatever StreamedPulls (schedule.h) says of their pull.
constexpr size_t kStreamPullFromBytes = size_t{64} << 10;

class ShmCommunicator : public Communicator {
 public:
  ShmCommunicator(const ConnectRequest& request, int ranks_on_host)
      : place_(request.place),
        ranks_on_host_(ranks_on_host),
        timeout_(request.timeout),
        policy_(DefaultPolicy(ranks_on_host, request.timeout)),
        me_(request.place.group_rank),
        n_(request.place.group_size) {}

  Status Init(Store* store, std::chrono::milliseconds timeout);

  StatusOr<std::unique_ptr<Work>> Prepare(const OpRequest& request) override {
    // A point runs alone on this communicator until the next Prepare: it sets how every wait spins.
    policy_ = DefaultPolicy(request.concurrent_ranks > 0 ? request.concurrent_ranks : ranks_on_host_, timeout_);
    std::string algo = request.algo;
    if (algo == "auto") algo = ChooseAlgorithm(Transport::kShm, request, n_);
    Problem problem{request.op, request.count, n_, request.in_place};
    problem.chunks = PipelineChunks(
        algo, request, request.concurrent_ranks > 0 ? request.concurrent_ranks : ranks_on_host_, UsableCores());
    ASSIGN_OR_RETURN(Schedule schedule, BuildSchedule(algo, problem));
    auto work = std::make_unique<ShmWork>(this, request, algo, std::move(schedule));
    RETURN_IF_ERROR(work->Init());
    return std::unique_ptr<Work>(std::move(work));
  }

  commbench::Transport transport() const override { return commbench::Transport::kSharedMemory; }

  Status Barrier() override {
    ++barrier_seq_;
    Publish(&slot(me_)->barrier, barrier_seq_);
    for (int q = 0; q < n_; ++q) {
      if (q == me_) continue;
      Status st = Wait(&slot(q)->barrier, barrier_seq_);
      if (!st.ok()) return Abort(Status(st.code(), Prefix() + "barrier: " + st.message()));
    }
    return OkStatus();
  }

  RankSlot* slot(int rank) const {
    return reinterpret_cast<RankSlot*>(ctl_.data() + kPage + static_cast<size_t>(rank) * sizeof(RankSlot));
  }
  CtlHeader* header() const { return reinterpret_cast<CtlHeader*>(ctl_.data()); }
  int me() const { return me_; }
  int n() const { return n_; }
  uint32_t& progress() { return progress_; }
  uint32_t NextPrepare() { return ++prepare_seq_; }

  Status Wait(Flag* flag, uint32_t target) {
    return WaitFor(flag, target, policy_, [this] { return Check(); });
  }

  // Marks the group aborted (peers stop waiting within a slice) and returns `status`.
  Status Abort(const Status& status) {
    Publish(&header()->abort, 1);
    return status;
  }

  std::string Prefix() const { return "native/shm rank " + std::to_string(place_.rank) + ": "; }

 private:
  Status Check() {
    if (header()->abort.value.load() != 0) return Unavailable("a peer rank aborted the group");
    for (int q = 0; q < n_; ++q) {
      pid_t pid = slot(q)->pid;
      if (q != me_ && ProcessGone(pid)) {
        return Unavailable("group rank " + std::to_string(q) + " (pid " + std::to_string(pid) + ") exited");
      }
    }
    return OkStatus();
  }

  RankPlace place_;
  int ranks_on_host_;  // at connect time: every rank of the world
  std::chrono::milliseconds timeout_;
  WaitPolicy policy_;
  int me_;
  int n_;
  Segment ctl_;
  uint32_t progress_ = 0;
  uint32_t barrier_seq_ = 0;
  uint32_t prepare_seq_ = 0;
};

Status ShmCommunicator::Init(Store* store, std::chrono::milliseconds timeout) {
  const size_t bytes = kPage + static_cast<size_t>(n_) * sizeof(RankSlot);
  const std::string key = "native/shm/ctl";
  if (me_ == 0) {
    ASSIGN_OR_RETURN(ctl_, Segment::Create(bytes));
    header()->magic = kMagic;
    header()->n = static_cast<uint32_t>(n_);
    slot(0)->pid = getpid();
    RETURN_IF_ERROR(store->Set(key, std::vector<char>(ctl_.name().begin(), ctl_.name().end())));
    Status st = Wait(&header()->attached, static_cast<uint32_t>(n_ - 1));
    ctl_.Unlink();  // every peer mapped it, or we give up: either way the name goes now
    if (!st.ok()) return Status(st.code(), Prefix() + "waiting for peers to map the control segment: " + st.message());
    return OkStatus();
  }
  ASSIGN_OR_RETURN(std::vector<char> name, store->Get(key, timeout));
  ASSIGN_OR_RETURN(ctl_, Segment::Open(std::string(name.begin(), name.end()), bytes));
  if (header()->magic != kMagic || header()->n != static_cast<uint32_t>(n_)) {
    return Internal(Prefix() + "control segment does not match this group (size " + std::to_string(header()->n) + ")");
  }
  slot(me_)->pid = getpid();
  Add(&header()->attached, 1);
  if (header()->attached.value.load() == static_cast<uint32_t>(n_ - 1)) shm_unlink(ctl_.name().c_str());
  return OkStatus();
}

Status ShmWork::Fail(const Status& status, const std::string& what) {
  std::string msg = comm_->Prefix() + std::string(Name(request_.op)) + " " + std::to_string(request_.count * esize_) +
                    " B algo " + algo_ + ": " + what + ": " + status.message();
  return comm_->Abort(Status(status.code(), msg));
}

Status ShmWork::Init() {
  const int n = comm_->n(), me = comm_->me();
  esize_ = SizeOf(request_.dtype);
  RETURN_IF_ERROR(Validate(schedule_));
  plan_ = MakeWaitPlan(schedule_, me);
  stream_ = StreamedPulls(schedule_, me, esize_);
  // Layout: header page, then each buffer page-aligned.
  size_t offsets[kNumBufs];
  size_t bytes = kPage;
  for (int b = 0; b < kNumBufs; ++b) {
    offsets[b] = bytes;
    bytes += AlignUp(schedule_.sizes.count[b] * esize_, kPage);
  }
  auto created = Segment::Create(bytes);
  if (!created.ok()) return Fail(created.status(), "creating buffers");
  mine_ = std::move(created).value();
  RankSlot* my_slot = comm_->slot(me);
  std::memcpy(my_slot->name, mine_.name().c_str(), mine_.name().size() + 1);
  my_slot->bytes = bytes;
  const uint32_t seq = comm_->NextPrepare();
  Publish(&my_slot->prepared, seq);
  bases_.assign(static_cast<size_t>(n), {});
  peers_.resize(static_cast<size_t>(n));
  for (int q = 0; q < n; ++q) {
    if (q != me) {
      Status st = comm_->Wait(&comm_->slot(q)->prepared, seq);
      if (!st.ok()) return Fail(st, "waiting for rank " + std::to_string(q) + "'s buffers");
      auto opened = Segment::Open(std::string(comm_->slot(q)->name), comm_->slot(q)->bytes);
      if (!opened.ok()) return Fail(opened.status(), "mapping rank " + std::to_string(q) + "'s buffers");
      peers_[static_cast<size_t>(q)] = std::move(opened).value();
      Flag* attached = &reinterpret_cast<WorkHeader*>(peers_[static_cast<size_t>(q)].data())->attached;
      Add(attached, 1);
      // The last peer to map it removes the name too, so a creator killed while waiting leaves nothing behind.
      // (The name as opened: once counted, the slot may already hold the creator's next name.)
      if (attached->value.load() == static_cast<uint32_t>(n - 1))
        shm_unlink(peers_[static_cast<size_t>(q)].name().c_str());
    }
    char* base = q == me ? mine_.data() : peers_[static_cast<size_t>(q)].data();
    for (int b = 0; b < kNumBufs; ++b) bases_[static_cast<size_t>(q)][b] = base + offsets[b];
  }
  Status st = comm_->Wait(&reinterpret_cast<WorkHeader*>(mine_.data())->attached, static_cast<uint32_t>(n - 1));
  mine_.Unlink();
  if (!st.ok()) return Fail(st, "waiting for peers to map the buffers");
  return OkStatus();
}

Status ShmWork::SetInput(const void* host, size_t bytes) {
  size_t want = SendCount(request_, comm_->n()) * esize_;
  if (bytes != want)
    return InvalidArgument(comm_->Prefix() + "SetInput got " + std::to_string(bytes) + " B, want " +
                           std::to_string(want));
  // Peers may still be reading this rank's buffers from the previous op.
  for (int q : plan_.readers) {
    Status st = comm_->Wait(&comm_->slot(q)->progress, comm_->progress());
    if (!st.ok()) return Fail(st, "waiting for rank " + std::to_string(q) + " to finish the previous op");
  }
  if (bytes > 0) std::memcpy(Address(InputLoc(schedule_.problem, comm_->me())), host, bytes);
  return OkStatus();
}

Status ShmWork::Run() {
  const int me = comm_->me();
  const uint32_t base = comm_->progress();
  for (int q : plan_.readers) {
    Status st = comm_->Wait(&comm_->slot(q)->progress, base);
    if (!st.ok()) return Fail(st, "waiting for rank " + std::to_string(q) + " to finish the previous op");
  }
  Flag* mine = &comm_->slot(me)->progress;
  uint32_t done = base + 1;
  uint32_t published = done;
  Publish(mine, done);
  const auto& steps = schedule_.steps[static_cast<size_t>(me)];
  for (size_t t = 0; t < steps.size(); ++t) {
    for (const PeerWait& w : plan_.before_step[t]) {
      Flag* theirs = &comm_->slot(w.rank)->progress;
      uint32_t target = base + 1 + w.steps_done;
      if (Reached(theirs->value.load(std::memory_order_acquire), target)) continue;
      if (published != done) {
        Publish(mine, done);
        published = done;
      }
      Status st = comm_->Wait(theirs, target);
      if (!st.ok()) return Fail(st, "step " + std::to_string(t) + " waiting for rank " + std::to_string(w.rank));
    }
    for (size_t i = 0; i < steps[t].pulls.size(); ++i) {
      const Pull& pull = steps[t].pulls[i];
      char* dst = Address(Loc{me, pull.dst_buf, pull.dst_offset});
      std::optional<StreamFinalOutputs> streamed;
      if (stream_[t][i]) streamed.emplace(kStreamPullFromBytes);
      CountPeerCopies(pull, me, esize_);  // lib/backend/peer_copies.h
      if (pull.srcs.size() == 1) {
        Copy(dst, Address(pull.srcs[0]), pull.count * esize_);
      } else {
        srcs_.clear();
        for (const Loc& src : pull.srcs) srcs_.push_back(Address(src));
        ReduceMany(request_.dtype, request_.reduce, dst, srcs_.data(), static_cast<int>(srcs_.size()), pull.count);
      }
    }
    ++done;
    if (!steps[t].pulls.empty()) {
      Publish(mine, done);
      published = done;
    }
  }
  if (published != done) Publish(mine, done);
  comm_->progress() = done;
  return OkStatus();
}

Status ShmWork::GetOutput(void* host, size_t bytes) {
  size_t want = RecvCount(request_, comm_->n()) * esize_;
  if (bytes != want)
    return InvalidArgument(comm_->Prefix() + "GetOutput got " + std::to_string(bytes) + " B, want " +
                           std::to_string(want));
  if (bytes > 0) std::memcpy(host, Address(OutputLoc(schedule_.problem, comm_->me())), bytes);
  return OkStatus();
}

}  // namespace

StatusOr<std::unique_ptr<Communicator>> ConnectShm(const ConnectRequest& request, int ranks_on_host) {
  if (request.store == nullptr) return InvalidArgument("native/shm: Connect needs a store");
  auto comm = std::make_unique<ShmCommunicator>(request, ranks_on_host);
  RETURN_IF_ERROR(comm->Init(request.store, request.timeout));
  return std::unique_ptr<Communicator>(std::move(comm));
}

}  // namespace native
}  // namespace commbench
