// Reduction kernels against memcpy of the same size, in the same run: in L1/L2 (32 KiB, 256 KiB) and out of
// cache (64 MiB, 512 MiB); f32 sum also at 4, 16 and 32 MiB, around the non-temporal-store threshold, and with
// the threshold forced off (cached-stores) and to 0 (nt-stores) to show the choice side by side.
//
// Bytes are counted the way STREAM counts them: bytes read plus bytes written per call, with the argument N the
// size of one buffer (count * element size; the half types count their 2-byte elements):
//   memcpy, Copy     2N  (read src, write dst)
//   dst = a op b     3N  (read a, read b, write dst)
//   dst op= b        3N  (read dst, read b, write dst)
//   dst = 4 inputs   5N  (read four, write dst)
// Neither the read-for-ownership of an ordinarily stored dst nor its absence with non-temporal stores counts,
// so kernel/memcpy is the fraction of memcpy's memory throughput the kernel reaches, not of its copy speed.
//
// After benchmark's normal output, main prints one line per kernel and size, "kernel/memcpy = X %", from the
// bytes_per_second (CPU time) of this run (the mean over repetitions when --benchmark_repetitions is given).
#include <benchmark/benchmark.h>
#include <emmintrin.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "lib/backend/native/reduce.h"

namespace commbench {
namespace native {
namespace {

// glibc's memcpy (the yardstick, "BM_Memcpy") or native::Copy (streaming stores from the threshold up,
// "BM_Copy"), same size, same byte counting.
template <bool kNativeCopy>
void BM_CopyBytes(benchmark::State& state) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  std::vector<char> src(bytes, 1), dst(bytes, 0);
  if (kNativeCopy) state.SetLabel(bytes >= StreamingThresholdBytes() ? "nt-stores" : "memcpy");
  for (auto _ : state) {
    if (kNativeCopy) {
      Copy(dst.data(), src.data(), bytes);
    } else {
      std::memcpy(dst.data(), src.data(), bytes);
    }
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 2 * static_cast<int64_t>(bytes));
}

// A copy on every CPU at once, each thread its own buffers: the host's aggregate copy bandwidth, what ranks that
// share the machine divide among themselves (bench/native_roofline.sh takes it beside BM_Memcpy, one core). glibc's
// memcpy ("BM_MemcpyAllCores") or native::Copy ("BM_CopyAllCores": streaming stores, no read-for-ownership of dst,
// as the collectives write their large outputs). Real time: the reported real_time is the wall time over the
// iterations of all threads together, so size / real_time is the bytes copied per second by all threads.
template <bool kNativeCopy>
void BM_CopyAllCores(benchmark::State& state) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  std::vector<char> src(bytes, 1), dst(bytes, 0);
  for (auto _ : state) {
    if (kNativeCopy) {
      Copy(dst.data(), src.data(), bytes);
    } else {
      std::memcpy(dst.data(), src.data(), bytes);
    }
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 2 * static_cast<int64_t>(bytes));
}

// Reads a and b and writes nothing (2N): what one core's reads alone reach here, next to memcpy's 2N and a
// reduction's 3N (where a reduction cannot reach memcpy out of cache, this shows why). SSE2 loads (x86-64
// baseline); only the out-of-cache sizes are run.
void BM_ReadTwoStreams(benchmark::State& state) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  std::vector<char> a(bytes, 1), b(bytes, 2);
  for (auto _ : state) {
    __m128i acc = _mm_setzero_si128();
    for (size_t i = 0; i + 16 <= bytes; i += 16) {
      __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a.data() + i));
      __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.data() + i));
      acc = _mm_add_epi64(acc, _mm_xor_si128(x, y));
    }
    benchmark::DoNotOptimize(acc);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 2 * static_cast<int64_t>(bytes));
}

enum class Stores { kDefault, kCached, kStreamed };

// dst = a op b (out of place) or dst op= b (accumulate, what the ring and halving-doubling steps do).
// Stores::kCached turns the non-temporal path off (ordinary stores at every size), Stores::kStreamed on at every
// size: the side-by-side check of the threshold (StreamingThresholdBytes).
template <DataType kType, ReduceOp kOp, bool kAccumulate, bool kPortable, Stores kStores = Stores::kDefault>
void BM_Reduce(benchmark::State& state) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  const size_t count = bytes / SizeOf(kType);
  std::vector<char> a(bytes, 0), b(bytes, 0), dst(bytes, 0);
  bool previous = ForcePortableKernels(kPortable);
  size_t previous_threshold = StreamingThresholdBytes();
  if (kStores != Stores::kDefault) SetStreamingThresholdBytes(kStores == Stores::kCached ? SIZE_MAX : 0);
  state.SetLabel(std::string(KernelIsa()) + (!kAccumulate && bytes >= StreamingThresholdBytes() ? " nt-stores" : ""));
  for (auto _ : state) {
    Reduce(kType, kOp, kAccumulate ? a.data() : dst.data(), a.data(), b.data(), count);
    benchmark::DoNotOptimize(dst.data());
    benchmark::DoNotOptimize(a.data());
    benchmark::ClobberMemory();
  }
  SetStreamingThresholdBytes(previous_threshold);
  ForcePortableKernels(previous);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 3 * static_cast<int64_t>(bytes));
}

// dst = s0 op s1 op s2 op s3 in one call (ReduceMany): what a direct (one-shot) step does when it pulls the
// same slice from four ranks. STREAM bytes 5N (four inputs read, dst written).
template <DataType kType, ReduceOp kOp>
void BM_ReduceFour(benchmark::State& state) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  std::vector<std::vector<char>> srcs(4, std::vector<char>(bytes, 0));
  std::vector<char> dst(bytes, 0);
  const void* ptrs[4] = {srcs[0].data(), srcs[1].data(), srcs[2].data(), srcs[3].data()};
  state.SetLabel(std::string(KernelIsa()) + (bytes >= StreamingThresholdBytes() ? " nt-stores" : ""));
  for (auto _ : state) {
    ReduceMany(kType, kOp, dst.data(), ptrs, 4, bytes / SizeOf(kType));
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 5 * static_cast<int64_t>(bytes));
}

constexpr int64_t kKiB = 1024, kMiB = 1024 * 1024;

void Sizes(benchmark::internal::Benchmark* b) {
  for (int64_t bytes : {32 * kKiB, 256 * kKiB, 64 * kMiB, 512 * kMiB}) b->Arg(bytes);
}

void SizesAroundThreshold(benchmark::internal::Benchmark* b) {
  for (int64_t bytes : {32 * kKiB, 256 * kKiB, 4 * kMiB, 16 * kMiB, 32 * kMiB, 64 * kMiB, 512 * kMiB}) b->Arg(bytes);
}

BENCHMARK(BM_CopyBytes<false>)->Name("BM_Memcpy")->Apply(SizesAroundThreshold);
BENCHMARK(BM_CopyBytes<true>)->Name("BM_Copy")->Apply(SizesAroundThreshold);
BENCHMARK(BM_CopyAllCores<false>)->Name("BM_MemcpyAllCores")->Arg(64 * kMiB)->ThreadPerCpu()->UseRealTime();
BENCHMARK(BM_CopyAllCores<true>)->Name("BM_CopyAllCores")->Arg(64 * kMiB)->ThreadPerCpu()->UseRealTime();
BENCHMARK(BM_ReadTwoStreams)->Arg(64 * kMiB)->Arg(512 * kMiB);
BENCHMARK(BM_Reduce<DataType::kF32, ReduceOp::kSum, false, false>)
    ->Name("BM_Reduce/f32/sum")
    ->Apply(SizesAroundThreshold);
BENCHMARK(BM_Reduce<DataType::kF32, ReduceOp::kSum, false, false, Stores::kCached>)
    ->Name("BM_Reduce/f32/sum/cached-stores")
    ->Apply(SizesAroundThreshold);
BENCHMARK(BM_Reduce<DataType::kF32, ReduceOp::kSum, false, false, Stores::kStreamed>)
    ->Name("BM_Reduce/f32/sum/nt-stores")
    ->Apply(SizesAroundThreshold);
BENCHMARK(BM_Reduce<DataType::kF32, ReduceOp::kSum, true, false>)->Name("BM_Accumulate/f32/sum")->Apply(Sizes);
BENCHMARK(BM_Reduce<DataType::kF32, ReduceOp::kMax, false, false>)->Name("BM_Reduce/f32/max")->Apply(Sizes);
BENCHMARK(BM_Reduce<DataType::kF64, ReduceOp::kSum, false, false>)->Name("BM_Reduce/f64/sum")->Apply(Sizes);
BENCHMARK(BM_Reduce<DataType::kI32, ReduceOp::kSum, false, false>)->Name("BM_Reduce/i32/sum")->Apply(Sizes);
BENCHMARK(BM_Reduce<DataType::kF16, ReduceOp::kSum, false, false>)->Name("BM_Reduce/f16/sum")->Apply(Sizes);
BENCHMARK(BM_Reduce<DataType::kBF16, ReduceOp::kSum, false, false>)->Name("BM_Reduce/bf16/sum")->Apply(Sizes);
BENCHMARK(BM_ReduceFour<DataType::kF32, ReduceOp::kSum>)->Name("BM_ReduceFour/f32/sum")->Apply(Sizes);
BENCHMARK(BM_ReduceFour<DataType::kBF16, ReduceOp::kSum>)->Name("BM_ReduceFour/bf16/sum")->Apply(Sizes);
BENCHMARK(BM_Reduce<DataType::kF32, ReduceOp::kSum, false, true>)->Name("BM_Reduce/f32/sum/portable")->Apply(Sizes);
BENCHMARK(BM_Reduce<DataType::kF16, ReduceOp::kSum, false, true>)->Name("BM_Reduce/f16/sum/portable")->Apply(Sizes);

// Forwards everything to the reporter the flags asked for and keeps each run's bytes_per_second; Finalize then
// prints kernel/memcpy per kernel and size.
class RatioReporter : public benchmark::BenchmarkReporter {
 public:
  RatioReporter(benchmark::BenchmarkReporter* inner, FILE* summary) : inner_(inner), summary_(summary) {}

  bool ReportContext(const Context& context) override { return inner_->ReportContext(context); }

  void ReportRuns(const std::vector<Run>& runs) override {
    inner_->ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Iteration || run.error_occurred) continue;
      auto it = run.counters.find("bytes_per_second");
      if (it == run.counters.end()) continue;
      Key key{run.run_name.function_name, std::stoll(run.run_name.args)};
      Sum& s = rates_[key];
      if (s.n == 0) order_.push_back(key);
      s.total += it->second.value;
      s.n += 1;
    }
  }

  void Finalize() override {
    inner_->Finalize();
    std::fprintf(summary_, "\nkernel/memcpy, STREAM bytes (read + written) per CPU second, same run:\n");
    for (const Key& key : order_) {
      if (key.first == "BM_Memcpy") continue;
      auto memcpy_rate = rates_.find(Key{"BM_Memcpy", key.second});
      if (memcpy_rate == rates_.end()) continue;
      double kernel = rates_[key].Mean(), copy = memcpy_rate->second.Mean();
      std::string size =
          key.second >= kMiB ? std::to_string(key.second / kMiB) + " MiB" : std::to_string(key.second / kKiB) + " KiB";
      std::fprintf(summary_, "%-34s %8s  kernel/memcpy = %6.1f %%  (%6.2f / %6.2f GB/s)\n", key.first.c_str(),
                   size.c_str(), 100.0 * kernel / copy, kernel / 1e9, copy / 1e9);
    }
    std::fflush(summary_);
  }

 private:
  using Key = std::pair<std::string, int64_t>;
  struct Sum {
    double total = 0;
    int n = 0;
    double Mean() const { return total / n; }
  };
  benchmark::BenchmarkReporter* inner_;  // not owned
  FILE* summary_;
  std::map<Key, Sum> rates_;
  std::vector<Key> order_;
};

}  // namespace
}  // namespace native
}  // namespace commbench

int main(int argc, char** argv) {
  // Read before Initialize consumes the flag: with JSON on stdout, the ratios go to stderr.
  bool json = false;
  for (int i = 1; i < argc; ++i) json = json || std::strcmp(argv[i], "--benchmark_format=json") == 0;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  // The reporter --benchmark_format asks for (the library owns it), wrapped to keep each run's rate.
  commbench::native::RatioReporter reporter(benchmark::CreateDefaultDisplayReporter(), json ? stderr : stdout);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
