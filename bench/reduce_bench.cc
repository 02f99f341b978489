// Reduction kernels against memcpy of the same output size, in the same run: in L1/L2 (32 KiB, 256 KiB) and out
// of cache (64 MiB, several times the last-level cache). bytes_per_second counts output bytes for every
// benchmark, so kernel/memcpy is the fraction of copy speed the reduction reaches; a reduction moves 3 streams
// (a, b, dst) where memcpy moves 2, so 2/3 is the bound when memory is the limit.
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "lib/backend/native/reduce.h"

namespace commbench {
namespace native {
namespace {

void BM_Memcpy(benchmark::State& state) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  std::vector<char> src(bytes, 1), dst(bytes, 0);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), bytes);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes));
}

// dst = a op b (out of place) or dst op= b (accumulate, what the ring and halving-doubling steps do).
template <DataType kType, ReduceOp kOp, bool kAccumulate, bool kPortable>
void BM_Reduce(benchmark::State& state) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  const size_t count = bytes / SizeOf(kType);
  std::vector<char> a(bytes, 0), b(bytes, 0), dst(bytes, 0);
  bool previous = ForcePortableKernels(kPortable);
  state.SetLabel(KernelIsa());
  for (auto _ : state) {
    Reduce(kType, kOp, kAccumulate ? a.data() : dst.data(), a.data(), b.data(), count);
    benchmark::DoNotOptimize(dst.data());
    benchmark::DoNotOptimize(a.data());
    benchmark::ClobberMemory();
  }
  ForcePortableKernels(previous);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes));
}

void Sizes(benchmark::internal::Benchmark* b) {
  for (int64_t bytes : {int64_t{32} << 10, int64_t{256} << 10, int64_t{64} << 20, int64_t{512} << 20}) b->Arg(bytes);
}

BENCHMARK(BM_Memcpy)->Apply(Sizes);
BENCHMARK(BM_Reduce<DataType::kF32, ReduceOp::kSum, false, false>)->Name("BM_Reduce/f32/sum")->Apply(Sizes);
BENCHMARK(BM_Reduce<DataType::kF32, ReduceOp::kSum, true, false>)->Name("BM_Accumulate/f32/sum")->Apply(Sizes);
BENCHMARK(BM_Reduce<DataType::kF32, ReduceOp::kMax, false, false>)->Name("BM_Reduce/f32/max")->Apply(Sizes);
BENCHMARK(BM_Reduce<DataType::kF64, ReduceOp::kSum, false, false>)->Name("BM_Reduce/f64/sum")->Apply(Sizes);
BENCHMARK(BM_Reduce<DataType::kI32, ReduceOp::kSum, false, false>)->Name("BM_Reduce/i32/sum")->Apply(Sizes);
BENCHMARK(BM_Reduce<DataType::kF16, ReduceOp::kSum, false, false>)->Name("BM_Reduce/f16/sum")->Apply(Sizes);
BENCHMARK(BM_Reduce<DataType::kBF16, ReduceOp::kSum, false, false>)->Name("BM_Reduce/bf16/sum")->Apply(Sizes);
BENCHMARK(BM_Reduce<DataType::kF32, ReduceOp::kSum, false, true>)->Name("BM_Reduce/f32/sum/portable")->Apply(Sizes);
BENCHMARK(BM_Reduce<DataType::kF16, ReduceOp::kSum, false, true>)->Name("BM_Reduce/f16/sum/portable")->Apply(Sizes);

}  // namespace
}  // namespace native
}  // namespace commbench
