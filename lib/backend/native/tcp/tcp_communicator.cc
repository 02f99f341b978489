#include "lib/backend/native/tcp/tcp_communicator.h"

#include <cstring>

#include "lib/backend/native/algorithm_choice.h"
#include "lib/backend/native/reduce.h"
#include "lib/backend/native/schedule.h"
#include "lib/backend/native/tcp/socket_mesh.h"

namespace commbench {
namespace native {
namespace {

// One step of one rank, turned into socket traffic: what to send to whom (peers' pulls that read us) and where
// each received source lands (straight into the destination for a plain copy, else into a temporary).
struct SendItem {
  int peer;
  Loc src;  // our own buffer
  size_t count;
};
struct RecvItem {
  int peer;
  size_t pull;
  size_t src;
  bool direct;
  size_t temp_offset;  // elements, when not direct
  size_t count;
};
struct StepIo {
  std::vector<SendItem> sends;
  std::vector<RecvItem> recvs;
  size_t temp_count = 0;
};

class TcpCommunicator;

class TcpWork : public Work {
 public:
  TcpWork(SocketMesh* mesh, const OpRequest& request, std::string algo, Schedule schedule)
      : mesh_(mesh), request_(request), algo_(std::move(algo)), schedule_(std::move(schedule)) {}

  Status Init() {
    RETURN_IF_ERROR(Validate(schedule_));
    esize_ = SizeOf(request_.dtype);
    const int me = mesh_->rank(), n = mesh_->size();
    for (int b = 0; b < kNumBufs; ++b) buffers_[b].assign(schedule_.sizes.count[b] * esize_, 0);
    size_t temp = 0;
    io_.resize(schedule_.num_steps());
    for (size_t t = 0; t < schedule_.num_steps(); ++t) {
      StepIo& io = io_[t];
      // Sends in the order the receiver expects: its pulls in order, each pull's sources in order.
      for (int q = 0; q < n; ++q) {
        if (q == me) continue;
        for (const Pull& pull : schedule_.steps[q][t].pulls) {
          for (const Loc& src : pull.srcs) {
            if (src.rank == me) io.sends.push_back(SendItem{q, src, pull.count});
          }
        }
      }
      const auto& pulls = schedule_.steps[me][t].pulls;
      for (size_t i = 0; i < pulls.size(); ++i) {
        for (size_t s = 0; s < pulls[i].srcs.size(); ++s) {
          const Loc& src = pulls[i].srcs[s];
          if (src.rank == me) continue;
          bool direct = pulls[i].srcs.size() == 1;
          io.recvs.push_back(RecvItem{src.rank, i, s, direct, io.temp_count, pulls[i].count});
          if (!direct) io.temp_count += pulls[i].count;
        }
      }
      temp = std::max(temp, io.temp_count);
    }
    temp_.assign(temp * esize_, 0);
    return OkStatus();
  }

  Status SetInput(const void* host, size_t bytes) override {
    size_t want = SendCount(request_, mesh_->size()) * esize_;
    if (bytes != want)
      return InvalidArgument(mesh_->Prefix() + "SetInput got " + std::to_string(bytes) + " B, want " +
                             std::to_string(want));
    if (bytes > 0) std::memcpy(Address(InputLoc(schedule_.problem, mesh_->rank())), host, bytes);
    return OkStatus();
  }

  Status Run() override {
    const int me = mesh_->rank();
    for (size_t t = 0; t < io_.size(); ++t) {
      const StepIo& io = io_[t];
      const auto& pulls = schedule_.steps[me][t].pulls;
      for (const SendItem& s : io.sends) mesh_->QueueSend(s.peer, Address(s.src), s.count * esize_);
      for (const RecvItem& r : io.recvs) {
        const Pull& pull = pulls[r.pull];
        char* into = r.direct ? Address(Loc{me, pull.dst_buf, pull.dst_offset}) : temp_.data() + r.temp_offset * esize_;
        mesh_->QueueRecv(r.peer, into, r.count * esize_);
      }
      Status st = mesh_->Progress();
      if (!st.ok()) {
        return Status(st.code(), st.message() + " (" + std::string(Name(request_.op)) + " " +
                                     std::to_string(request_.count * esize_) + " B algo " + algo_ + ", step " +
                                     std::to_string(t) + ")");
      }
      // Apply the pulls; received sources are found by (pull, source) in the receive list.
      size_t next_recv = 0;
      for (size_t i = 0; i < pulls.size(); ++i) {
        const Pull& pull = pulls[i];
        char* dst = Address(Loc{me, pull.dst_buf, pull.dst_offset});
        srcs_.clear();
        bool received_direct = false;
        for (size_t s = 0; s < pull.srcs.size(); ++s) {
          if (pull.srcs[s].rank == me) {
            srcs_.push_back(Address(pull.srcs[s]));
          } else {
            const RecvItem& r = io.recvs[next_recv++];
            received_direct = r.direct;
            srcs_.push_back(temp_.data() + r.temp_offset * esize_);
          }
        }
        if (received_direct) continue;  // already in place
        if (srcs_.size() == 1) {
          Copy(dst, srcs_[0], pull.count * esize_);
        } else {
          ReduceMany(request_.dtype, request_.reduce, dst, srcs_.data(), static_cast<int>(srcs_.size()), pull.count);
        }
      }
    }
    return OkStatus();
  }

  Status GetOutput(void* host, size_t bytes) override {
    size_t want = RecvCount(request_, mesh_->size()) * esize_;
    if (bytes != want)
      return InvalidArgument(mesh_->Prefix() + "GetOutput got " + std::to_string(bytes) + " B, want " +
                             std::to_string(want));
    if (bytes > 0) std::memcpy(host, Address(OutputLoc(schedule_.problem, mesh_->rank())), bytes);
    return OkStatus();
  }

  std::string algo() const override { return algo_; }
  // Receives are posted inside Run; what a peer sends early waits in the socket.
  bool OutputHeldUntilNextRun() const override { return true; }
  bool KeepsInput() const override { return !WritesInput(schedule_); }

 private:
  char* Address(const Loc& loc) { return buffers_[static_cast<int>(loc.buf)].data() + loc.offset * esize_; }

  SocketMesh* mesh_;
  OpRequest request_;
  std::string algo_;
  Schedule schedule_;
  size_t esize_ = 0;
  std::vector<char> buffers_[kNumBufs];
  std::vector<char> temp_;
  std::vector<StepIo> io_;
  std::vector<const void*> srcs_;
};

class TcpCommunicator : public Communicator {
 public:
  Status Init(const ConnectRequest& request) { return mesh_.Connect(request); }

  StatusOr<std::unique_ptr<Work>> Prepare(const OpRequest& request) override {
    std::string algo = request.algo == "auto" ? ChooseAlgorithm(Transport::kTcp, request, mesh_.size()) : request.algo;
    Problem problem{request.op, request.count, mesh_.size(), request.in_place};
    ASSIGN_OR_RETURN(Schedule schedule, BuildSchedule(algo, problem));
    auto work = std::make_unique<TcpWork>(&mesh_, request, algo, std::move(schedule));
    RETURN_IF_ERROR(work->Init());
    return std::unique_ptr<Work>(std::move(work));
  }

  commbench::Transport transport() const override { return commbench::Transport::kTcp; }

  // One byte to and from every peer: the streams are FIFO, so this orders against everything sent before.
  Status Barrier() override {
    char out = 1;
    std::vector<char> in(static_cast<size_t>(mesh_.size()));
    for (int q = 0; q < mesh_.size(); ++q) {
      if (q == mesh_.rank()) continue;
      mesh_.QueueSend(q, &out, 1);
      mesh_.QueueRecv(q, &in[static_cast<size_t>(q)], 1);
    }
    return mesh_.Progress();
  }

 private:
  SocketMesh mesh_;
};

}  // namespace

StatusOr<std::unique_ptr<Communicator>> ConnectTcp(const ConnectRequest& request, int /*ranks_on_host*/) {
  if (request.store == nullptr) return InvalidArgument("native/tcp: Connect needs a store");
  auto comm = std::make_unique<TcpCommunicator>();
  RETURN_IF_ERROR(comm->Init(request));
  return std::unique_ptr<Communicator>(std::move(comm));
}

}  // namespace native
}  // namespace commbench
