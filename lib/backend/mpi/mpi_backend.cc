// Backend "mpi": the system's OpenMPI as the yardstick. Ranks must be started by mpirun (--launcher mpirun);
// Connect initialises MPI if nobody has, checks that MPI's world matches commbench's placement, and splits one
// communicator per group. MPI is finalised at exit. f16 and bf16, which MPI lacks, travel as 2-byte contiguous
// types reduced by user ops over the native kernels (accumulating in f32).
#include <mpi/mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "lib/backend/backend.h"
#include "lib/backend/native/reduce.h"

namespace commbench {
namespace {

std::string MpiError(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, text, &len);
  return std::string(text, static_cast<size_t>(len));
}

bool LaunchedByMpirun() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMIX_RANK") != nullptr ||
         std::getenv("PMI_RANK") != nullptr;
}

// User reductions for the half types: one MPI_Op per (dtype, op), created once.
template <DataType kType, ReduceOp kOp>
void HalfReduce(void* in, void* inout, int* len, MPI_Datatype*) {
  native::Reduce(kType, kOp, inout, inout, in, static_cast<size_t>(*len));
}

struct HalfOps {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Op ops[2][4];
};

template <DataType kType>
void CreateOps(MPI_Op* ops) {
  MPI_Op_create(&HalfReduce<kType, ReduceOp::kSum>, 1, &ops[0]);
  MPI_Op_create(&HalfReduce<kType, ReduceOp::kMax>, 1, &ops[1]);
  MPI_Op_create(&HalfReduce<kType, ReduceOp::kMin>, 1, &ops[2]);
  MPI_Op_create(&HalfReduce<kType, ReduceOp::kProd>, 1, &ops[3]);
}

int OpIndex(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return 0;
    case ReduceOp::kMax:
      return 1;
    case ReduceOp::kMin:
      return 2;
    case ReduceOp::kProd:
      return 3;
  }
  return 0;
}

std::once_flag init_once;
Status init_status;
HalfOps* half_ops = nullptr;

void InitMpi() {
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised) {
    int provided = 0;
    int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
    if (rc != MPI_SUCCESS) {
      init_status = Unavailable("mpi: MPI_Init_thread failed: " + MpiError(rc));
      return;
    }
    std::atexit([] {
      int finalised = 0;
      MPI_Finalized(&finalised);
      if (!finalised) MPI_Finalize();
    });
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  half_ops = new HalfOps();
  MPI_Type_contiguous(2, MPI_BYTE, &half_ops->type);
  MPI_Type_commit(&half_ops->type);
  CreateOps<DataType::kF16>(half_ops->ops[0]);
  CreateOps<DataType::kBF16>(half_ops->ops[1]);
}

MPI_Datatype MpiType(DataType t) {
  switch (t) {
    case DataType::kF32:
      return MPI_FLOAT;
    case DataType::kF64:
      return MPI_DOUBLE;
    case DataType::kI32:
      return MPI_INT32_T;
    case DataType::kF16:
    case DataType::kBF16:
      return half_ops->type;
  }
  return MPI_BYTE;
}

MPI_Op MpiOp(DataType t, ReduceOp op) {
  if (t == DataType::kF16 || t == DataType::kBF16) return half_ops->ops[t == DataType::kF16 ? 0 : 1][OpIndex(op)];
  switch (op) {
    case ReduceOp::kSum:
      return MPI_SUM;
    case ReduceOp::kMax:
      return MPI_MAX;
    case ReduceOp::kMin:
      return MPI_MIN;
    case ReduceOp::kProd:
      return MPI_PROD;
  }
  return MPI_SUM;
}

class MpiWork : public Work {
 public:
  MpiWork(MPI_Comm comm, int n, int rank, const OpRequest& request) : comm_(comm), n_(n), rank_(rank), r_(request) {
    const size_t es = SizeOf(r_.dtype);
    size_t send = SendCount(r_, n_) * es, recv = RecvCount(r_, n_) * es;
    if (r_.in_place) {
      out_.assign(std::max(send, recv), 0);
    } else {
      in_.assign(send, 0);
      out_.assign(recv, 0);
    }
  }

  Status SetInput(const void* host, size_t bytes) override {
    const size_t es = SizeOf(r_.dtype);
    if (bytes != SendCount(r_, n_) * es) return InvalidArgument("mpi: SetInput size mismatch");
    char* at = r_.in_place ? out_.data() : in_.data();
    // In-place allgather: our block sits at our offset (MPI_IN_PLACE takes it from there).
    if (r_.in_place && r_.op == Collective::kAllgather) at += static_cast<size_t>(rank_) * r_.count * es;
    if (bytes > 0) std::memcpy(at, host, bytes);
    return OkStatus();
  }

  Status Run() override {
    const int count = static_cast<int>(r_.count);
    const void* send = r_.in_place ? MPI_IN_PLACE : static_cast<const void*>(in_.data());
    MPI_Datatype type = MpiType(r_.dtype);
    int rc = MPI_SUCCESS;
    switch (r_.op) {
      case Collective::kAllreduce:
        rc = MPI_Allreduce(send, out_.data(), count, type, MpiOp(r_.dtype, r_.reduce), comm_);
        break;
      case Collective::kAllgather:
        rc = MPI_Allgather(send, count, type, out_.data(), count, type, comm_);
        break;
      case Collective::kReduceScatter:
        // In place, MPI leaves the result at the start of the buffer (not at our block's offset).
        rc = MPI_Reduce_scatter_block(send, out_.data(), count, type, MpiOp(r_.dtype, r_.reduce), comm_);
        break;
    }
    if (rc != MPI_SUCCESS) {
      return Internal("mpi rank " + std::to_string(rank_) + ": " + std::string(Name(r_.op)) + " " +
                      std::to_string(r_.count * SizeOf(r_.dtype)) + " B: " + MpiError(rc));
    }
    return OkStatus();
  }

  Status GetOutput(void* host, size_t bytes) override {
    if (bytes != RecvCount(r_, n_) * SizeOf(r_.dtype)) return InvalidArgument("mpi: GetOutput size mismatch");
    if (bytes > 0) std::memcpy(host, out_.data(), bytes);
    return OkStatus();
  }

  std::string algo() const override { return "default"; }

 private:
  MPI_Comm comm_;
  int n_;
  int rank_;
  OpRequest r_;
  std::vector<char> in_, out_;
};

class MpiCommunicator : public Communicator {
 public:
  MpiCommunicator(MPI_Comm comm, int n, int rank) : comm_(comm), n_(n), rank_(rank) {}
  ~MpiCommunicator() override {
    int finalised = 0;
    MPI_Finalized(&finalised);
    if (!finalised) MPI_Comm_free(&comm_);
  }

  StatusOr<std::unique_ptr<Work>> Prepare(const OpRequest& request) override {
    return std::unique_ptr<Work>(std::make_unique<MpiWork>(comm_, n_, rank_, request));
  }

  Status Barrier() override {
    int rc = MPI_Barrier(comm_);
    return rc == MPI_SUCCESS ? OkStatus() : Internal("mpi: barrier: " + MpiError(rc));
  }

 private:
  MPI_Comm comm_;
  int n_;
  int rank_;
};

class MpiBackend : public Backend {
 public:
  std::string name() const override { return "mpi"; }

  // The driver asks this before it launches anything: can mpirun start ranks here? Connect (in the ranks) then
  // insists on having been started by it.
  Status Available() const override {
    if (LaunchedByMpirun() || access("/usr/bin/mpirun", X_OK) == 0) return OkStatus();
    return Unavailable("mpi: no /usr/bin/mpirun (apt-get install openmpi-bin)");
  }

  // An MPI rank is a process that mpirun started.
  BackendCapabilities Capabilities() const override {
    BackendCapabilities caps;
    caps.launcher = Launcher::kMpirun;
    caps.one_rank_per_process = true;
    return caps;
  }

  std::string Version() const override {
    char text[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(text, &len);
    std::string v(text, static_cast<size_t>(len));
    size_t comma = v.find(',');
    return comma == std::string::npos ? v : v.substr(0, comma);
  }

  std::vector<AlgorithmInfo> Algorithms() const override {
    std::vector<AlgorithmInfo> out;
    for (Collective op : AllCollectives()) {
      out.push_back({"default", op, "the MPI library's own choice (OpenMPI coll/tuned decision rules)", "all"});
    }
    return out;
  }

  Status Supports(const OpRequest& r, int /*group_size*/) const override {
    RETURN_IF_ERROR(CheckCapabilities("mpi", Capabilities(), r));
    if (r.algo != "auto" && r.algo != "default") return InvalidArgument("mpi has only algorithm 'default'");
    if (r.count > static_cast<size_t>(INT32_MAX)) return InvalidArgument("mpi counts are int");
    return OkStatus();
  }

  StatusOr<std::unique_ptr<Communicator>> Connect(const ConnectRequest& request) override {
    if (!LaunchedByMpirun()) return Unavailable("mpi: ranks must be started by mpirun (use --launcher mpirun)");
    std::call_once(init_once, InitMpi);
    RETURN_IF_ERROR(init_status);
    int world_rank = 0, world_size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    const RankPlace& p = request.place;
    if (world_rank != p.rank || world_size != p.world) {
      return Internal("mpi: MPI world rank " + std::to_string(world_rank) + " of " + std::to_string(world_size) +
                      " does not match commbench rank " + std::to_string(p.rank) + " of " + std::to_string(p.world));
    }
    // Collective over the world: every group's ranks connect at the same time.
    MPI_Comm comm;
    int rc = MPI_Comm_split(MPI_COMM_WORLD, p.group, p.group_rank, &comm);
    if (rc != MPI_SUCCESS) return Internal("mpi: MPI_Comm_split: " + MpiError(rc));
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    return std::unique_ptr<Communicator>(std::make_unique<MpiCommunicator>(comm, p.group_size, p.group_rank));
  }
};

const bool kRegistered = RegisterBackend("mpi", [] { return std::make_unique<MpiBackend>(); });

}  // namespace
}  // namespace commbench
