// Backend "gloo": Gloo's classic algorithms over its TCP transport.
#include <gloo/allgather_ring.h>
#include <gloo/allreduce_halving_doubling.h>
#include <gloo/allreduce_ring.h>
#include <gloo/allreduce_ring_chunked.h>
#include <gloo/barrier_all_to_all.h>
#include <gloo/config.h>
#include <gloo/reduce_scatter.h>
#include <gloo/types.h>

#include <cstring>

#include "lib/backend/backend.h"
#include "lib/backend/gloo/gloo_context.h"

namespace commbench {
namespace {

template <typename T>
const gloo::ReductionFunction<T>* ReductionFor(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return gloo::ReductionFunction<T>::sum;
    case ReduceOp::kProd:
      return gloo::ReductionFunction<T>::product;
    case ReduceOp::kMax:
      return gloo::ReductionFunction<T>::max;
    case ReduceOp::kMin:
      return gloo::ReductionFunction<T>::min;
  }
  return nullptr;
}

std::string Describe(const OpRequest& r, const RankPlace& p) {
  return "gloo " + std::string(Name(r.op)) + " (" + r.algo + ", " + std::string(Name(r.dtype)) + ", count " +
         std::to_string(r.count) + ") on rank " + std::to_string(p.rank) + " (group " + std::to_string(p.group) + ")";
}

// Owns the buffers and the Gloo algorithm object for one point. Gloo's allreduce and reduce-scatter work in
// place on `data_`; allgather reads `data_` and writes `out_`.
template <typename T>
class GlooWork : public Work {
 public:
  GlooWork(std::shared_ptr<gloo::Context> context, const OpRequest& request, const RankPlace& place)
      : request_(request), place_(place) {
    const int n = place.group_size;
    data_.resize(SendCount(request, n));
    const int count = static_cast<int>(request.count);
    std::vector<T*> ptrs{data_.data()};
    const auto* fn = ReductionFor<T>(request.reduce);
    switch (request.op) {
      case Collective::kAllreduce:
        if (request.algo == "ring_chunked") {
          algorithm_ = std::make_unique<gloo::AllreduceRingChunked<T>>(context, ptrs, count, fn);
        } else if (request.algo == "halving_doubling") {
          algorithm_ = std::make_unique<gloo::AllreduceHalvingDoubling<T>>(context, ptrs, count, fn);
        } else {
          algorithm_ = std::make_unique<gloo::AllreduceRing<T>>(context, ptrs, count, fn);
        }
        break;
      case Collective::kAllgather:
        out_.resize(RecvCount(request, n));
        if (n == 1) break;  // AllgatherRing needs a peer
        algorithm_ =
            std::make_unique<gloo::AllgatherRing<T>>(context, std::vector<const T*>{data_.data()}, out_.data(), count);
        break;
      case Collective::kReduceScatter:
        if (request.algo == "halving_doubling") {
          algorithm_ = std::make_unique<gloo::ReduceScatterHalvingDoubling<T>>(
              context, ptrs, static_cast<int>(data_.size()), std::vector<int>(static_cast<size_t>(n), count), fn);
        } else {  // ring_slice: reduce the whole buffer, keep this rank's slice
          algorithm_ = std::make_unique<gloo::AllreduceRing<T>>(context, ptrs, static_cast<int>(data_.size()), fn);
        }
        break;
    }
  }

  Status SetInput(const void* host, size_t bytes) override {
    if (bytes != data_.size() * sizeof(T)) return Internal("gloo: input of " + std::to_string(bytes) + " bytes");
    if (bytes) std::memcpy(static_cast<void*>(data_.data()), host, bytes);
    return OkStatus();
  }

  Status Run() override {
    if (!algorithm_) {  // a group of one: nothing to exchange, the result is the input
      if (!out_.empty()) std::copy(data_.begin(), data_.end(), out_.begin());
      return OkStatus();
    }
    try {
      algorithm_->run();
      return OkStatus();
    } catch (const std::exception& e) {
      return Internal(Describe(request_, place_) + " failed: " + e.what());
    }
  }

  Status GetOutput(void* host, size_t bytes) override {
    const T* src = data_.data();
    size_t count = data_.size();
    if (request_.op == Collective::kAllgather) {
      src = out_.data();
      count = out_.size();
    } else if (request_.op == Collective::kReduceScatter) {
      // halving_doubling's distribution phase leaves this rank's reduced slice at the front of the in-place
      // buffer; ring_slice reduced every slice and this rank's is at its group rank's offset.
      count = request_.count;
      if (request_.algo == "ring_slice") src += static_cast<size_t>(place_.group_rank) * count;
    }
    if (bytes != count * sizeof(T)) return Internal("gloo: output of " + std::to_string(bytes) + " bytes");
    if (bytes) std::memcpy(host, src, bytes);
    return OkStatus();
  }

  std::string algo() const override { return request_.algo; }

  // The allreduce and reduce-scatter algorithms receive into buffers of their own (inbox_, recvBuf_) and only the
  // rank itself writes data_; the allgather ring receives each block straight into out_, and a peer sends its
  // next op's block there as soon as that op starts.
  bool OutputHeldUntilNextRun() const override { return request_.op != Collective::kAllgather; }

 private:
  OpRequest request_;
  RankPlace place_;
  std::vector<T> data_;
  std::vector<T> out_;
  std::unique_ptr<gloo::Algorithm> algorithm_;
};

class GlooCommunicator : public Communicator {
 public:
  // The group barrier is built here, once per group, before any point's algorithm (every rank builds them in the
  // same order, so their Gloo slots agree), and run again and again so that its receive buffers are always posted
  // (control_plane.h says why a late rank then costs no CPU). gloo::barrier, which sets up a buffer on every call,
  // was far dearer where ranks outnumber cores: 8 pairs of 400 B allreduces on 2 cores with a group barrier after
  // each sampled check (1 in 256 iterations) read 253-294 us per op with it, 182-218 with this one, 137-198
  // without checks (bench/archive.md, "Headline vs the user's loop").
  static StatusOr<std::unique_ptr<Communicator>> Create(std::shared_ptr<gloo::Context> context, RankPlace place) {
    std::unique_ptr<GlooCommunicator> comm(new GlooCommunicator(std::move(context), place));
    if (comm->context_->size > 1) {
      try {
        comm->barrier_ = std::make_unique<gloo::BarrierAllToAll>(comm->context_);
      } catch (const std::exception& e) {
        return Internal("gloo group barrier setup failed on rank " + std::to_string(place.rank) + ": " + e.what());
      }
    }
    return std::unique_ptr<Communicator>(std::move(comm));
  }

  StatusOr<std::unique_ptr<Work>> Prepare(const OpRequest& request) override {
    OpRequest r = request;
    if (r.algo.empty() || r.algo == "auto") {
      r.algo = r.op == Collective::kAllreduce ? "ring" : r.op == Collective::kAllgather ? "ring" : "ring_slice";
    }
    try {
      switch (r.dtype) {
        case DataType::kF32:
          return std::unique_ptr<Work>(new GlooWork<float>(context_, r, place_));
        case DataType::kF64:
          return std::unique_ptr<Work>(new GlooWork<double>(context_, r, place_));
        case DataType::kI32:
          return std::unique_ptr<Work>(new GlooWork<int32_t>(context_, r, place_));
        case DataType::kF16:
          return std::unique_ptr<Work>(new GlooWork<gloo::float16>(context_, r, place_));
        case DataType::kBF16:
          break;
      }
    } catch (const std::exception& e) {
      return Internal(Describe(r, place_) + ": setup failed: " + e.what());
    }
    return InvalidArgument("gloo has no bf16 type");
  }

  Status Barrier() override {
    if (!barrier_) return OkStatus();  // a group of one
    try {
      barrier_->run();
      return OkStatus();
    } catch (const std::exception& e) {
      return Internal("gloo barrier failed on rank " + std::to_string(place_.rank) + ": " + e.what());
    }
  }

 private:
  GlooCommunicator(std::shared_ptr<gloo::Context> context, RankPlace place)
      : context_(std::move(context)), place_(place) {}

  std::shared_ptr<gloo::Context> context_;
  RankPlace place_;
  std::unique_ptr<gloo::BarrierAllToAll> barrier_;
};

class GlooBackend : public Backend {
 public:
  std::string name() const override { return "gloo"; }
  Status Available() const override { return OkStatus(); }
  std::string Version() const override {
    return "gloo " + std::to_string(GLOO_VERSION_MAJOR) + "." + std::to_string(GLOO_VERSION_MINOR) + "." +
           std::to_string(GLOO_VERSION_PATCH);
  }

  std::vector<AlgorithmInfo> Algorithms() const override {
    return {
        {"ring", Collective::kAllreduce, "reduce-scatter then allgather around a ring, one chunk per rank",
         "large messages"},
        {"ring_chunked", Collective::kAllreduce, "ring with pipelined chunks, two in flight per peer",
         "large messages"},
        {"halving_doubling", Collective::kAllreduce,
         "recursive halving reduce-scatter then doubling allgather (binary blocks for non-powers of two)",
         "small and medium messages"},
        {"ring", Collective::kAllgather, "each rank forwards blocks to its right neighbour", "any size"},
        {"ring_slice", Collective::kReduceScatter,
         "ring allreduce of the whole buffer, then each rank keeps its own slice (twice the traffic of a true "
         "reduce-scatter)",
         "any size; the default"},
        {"halving_doubling", Collective::kReduceScatter,
         "Gloo's recursive halving with a final redistribution. Known race in this Gloo: a rank overwrites "
         "data it is still sending, so chunks can arrive wrong, most often large ones but seen at 16 KiB on 3 "
         "ranks under load (commbench's check reports them)",
         "chunks up to 256 KiB"},
    };
  }

  // No bf16; allgather out of place, the reductions in place.
  BackendCapabilities Capabilities() const override {
    BackendCapabilities caps;
    caps.dtypes = {DataType::kF32, DataType::kF64, DataType::kI32, DataType::kF16};
    caps.in_place_ops = {Collective::kAllreduce, Collective::kReduceScatter};
    caps.out_of_place_ops = {Collective::kAllgather};
    caps.transport = Transport::kTcp;
    caps.traffic_model = TrafficModel::kGlooAlgorithms;
    return caps;
  }

  Status Supports(const OpRequest& r, int /*group_size*/) const override {
    RETURN_IF_ERROR(CheckCapabilities("gloo", Capabilities(), r));
    bool known = r.algo == "auto";
    for (const auto& a : Algorithms()) known = known || (a.op == r.op && a.name == r.algo);
    if (!known) return InvalidArgument("gloo has no " + std::string(Name(r.op)) + " algorithm '" + r.algo + "'");
    if (r.count > static_cast<size_t>(INT32_MAX) / 64) return InvalidArgument("gloo counts are 32-bit");
    return OkStatus();
  }

  StatusOr<std::unique_ptr<Communicator>> Connect(const ConnectRequest& request) override {
    GlooConnectOptions options;
    options.rank = request.place.group_rank;
    options.size = request.place.group_size;
    options.store = request.store;
    options.host = request.host;
    options.iface = request.iface;
    options.timeout = request.timeout;
    ASSIGN_OR_RETURN(auto context, ConnectGlooContext(options));
    return GlooCommunicator::Create(std::move(context), request.place);
  }
};

const bool kRegistered = RegisterBackend("gloo", [] { return std::make_unique<GlooBackend>(); });

}  // namespace
}  // namespace commbench
