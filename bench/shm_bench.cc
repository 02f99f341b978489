// The native backend over shared memory: one benchmark thread per rank, each with its own Communicator (as the
// tests do), timing Work::Run per collective, algorithm and size. Time is per op as each rank sees it. The size
// is nccl-tests' (per-rank buffer for allreduce, the whole gathered or scattered vector for the other two).
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <atomic>
#include <string>

#include "lib/backend/backend.h"
#include "lib/core/temp_dir.h"
#include "lib/measure/pattern.h"
#include "lib/rendezvous/store.h"

namespace commbench {
namespace {

const std::string& StoreDir() {
  static const TempDir dir("commbench-shm-bench-");  // the whole run's rendezvous, removed at exit
  return dir.path();
}

// Every thread of an n-thread run runs the benchmark function once, so the call count per (n, thread) names the
// group (runs with another thread count leave it alone).
std::atomic<int> calls[65][64];

void BM_Shm(benchmark::State& state, Collective op, std::string algo) {
  const int n = state.threads();
  const int rank = state.thread_index();
  const std::string prefix = "n" + std::to_string(n) + "call" + std::to_string(calls[n][rank]++);
  auto store = NewFileStore(StoreDir());
  PrefixStore group_store(prefix, store.get());
  auto backend = CreateBackend("native");
  ConnectRequest connect;
  connect.place = RankPlace{rank, n, 0, rank, n, rank};
  connect.store = &group_store;
  auto comm = (*backend)->Connect(connect);
  if (!comm.ok()) {
    state.SkipWithError(comm.status().message().c_str());
    return;
  }
  OpRequest request;
  request.op = op;
  request.count = static_cast<size_t>(state.range(0)) / 4 / (op == Collective::kAllreduce ? 1 : n);
  request.algo = algo;
  auto work = (*comm)->Prepare(request);
  if (!work.ok()) {
    state.SkipWithError(work.status().message().c_str());
    return;
  }
  std::vector<char> in;
  FillInput(request, rank, n, 0, &in);
  if (!(*work)->SetInput(in.data(), in.size()).ok()) state.SkipWithError("SetInput");
  for (auto _ : state) {
    if (!(*work)->Run().ok()) {
      state.SkipWithError("Run failed");
      break;
    }
  }
  state.SetLabel((*work)->algo());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
  (void)(*comm)->Barrier();
}

void Sizes(benchmark::internal::Benchmark* b) {
  for (int64_t bytes : {int64_t{64}, int64_t{4} << 10, int64_t{256} << 10, int64_t{1} << 20, int64_t{16} << 20}) {
    b->Arg(bytes);
  }
  b->Threads(2)->UseRealTime();
}

// The roofline sizes (bench/native_roofline.sh), 2 and 4 ranks.
void LargeSizes(benchmark::internal::Benchmark* b) {
  for (int64_t bytes : {int64_t{16} << 20, int64_t{64} << 20}) b->Arg(bytes);
  b->Threads(2)->Threads(4)->UseRealTime();
}

void BM_ShmAllreduce(benchmark::State& state, std::string algo) { BM_Shm(state, Collective::kAllreduce, algo); }

BENCHMARK_CAPTURE(BM_ShmAllreduce, auto, std::string("auto")) -> Apply(Sizes);
BENCHMARK_CAPTURE(BM_ShmAllreduce, direct, std::string("direct"))->Apply(Sizes);
BENCHMARK_CAPTURE(BM_ShmAllreduce, twoshot, std::string("twoshot"))->Apply(Sizes);
BENCHMARK_CAPTURE(BM_ShmAllreduce, ring, std::string("ring"))->Apply(Sizes);
BENCHMARK_CAPTURE(BM_ShmAllreduce, hd, std::string("hd"))->Apply(Sizes);
BENCHMARK_CAPTURE(BM_Shm, allreduce_large, Collective::kAllreduce, std::string("auto"))->Apply(LargeSizes);
BENCHMARK_CAPTURE(BM_Shm, allgather_large, Collective::kAllgather, std::string("auto"))->Apply(LargeSizes);
BENCHMARK_CAPTURE(BM_Shm, reduce_scatter_large, Collective::kReduceScatter, std::string("auto"))->Apply(LargeSizes);

}  // namespace
}  // namespace commbench
