// The correctness check's own cost: FillInput and CheckOutput (what a rank runs for every checked iteration) against
// the per-element definitions they must agree with (PatternValue, ExpectedValue), same cases, same run. A check
// runs outside its own group's clock but on a core that concurrent groups may need, so its cost is the harness's
// perturbation of the points beside it.
//
// After benchmark's normal output, main prints one line per case: "reference/fast = X" (how many times faster the
// fast path is) and the fast path's nanoseconds per element (the mean over --benchmark_repetitions).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "lib/backend/backend.h"
#include "lib/measure/pattern.h"

namespace commbench {
namespace {

struct Case {
  const char* name;
  Collective op;
  DataType dtype;
  ReduceOp reduce;
  int group_size;
};

// Allreduce sum f32 is the default point; 8 ranks fill every reduction window; allgather receives G blocks.
const Case kCases[] = {
    {"allreduce/f32/sum/G2", Collective::kAllreduce, DataType::kF32, ReduceOp::kSum, 2},
    {"allreduce/f32/sum/G8", Collective::kAllreduce, DataType::kF32, ReduceOp::kSum, 8},
    {"allreduce/bf16/prod/G8", Collective::kAllreduce, DataType::kBF16, ReduceOp::kProd, 8},
    {"allgather/f32/G8", Collective::kAllgather, DataType::kF32, ReduceOp::kSum, 8},
    {"reduce_scatter/f64/max/G8", Collective::kReduceScatter, DataType::kF64, ReduceOp::kMax, 8},
};

constexpr size_t kSendBytes = 1 << 20;  // 1 MiB per rank, the size where a check cost ~5 ms before the tables
constexpr uint64_t kIter = 7;
constexpr int kRank = 1;

OpRequest RequestFor(const Case& c) {
  OpRequest request;
  request.op = c.op;
  request.dtype = c.dtype;
  request.reduce = c.reduce;
  const size_t send_count = kSendBytes / SizeOf(c.dtype);
  request.count = c.op == Collective::kReduceScatter ? send_count / static_cast<size_t>(c.group_size) : send_count;
  return request;
}

// What the receive buffer of a correct run holds.
std::vector<char> CorrectOutput(const OpRequest& request, int group_size) {
  const size_t n = RecvCount(request, group_size);
  std::vector<char> out(n * SizeOf(request.dtype));
  for (size_t i = 0; i < n; ++i) {
    StoreElement(request.dtype, out.data(), i, ExpectedValue(request, kRank, group_size, i, kIter));
  }
  return out;
}

void BM_Fill(benchmark::State& state, Case c) {
  const OpRequest request = RequestFor(c);
  std::vector<char> buffer;
  for (auto _ : state) {
    FillInput(request, kRank, c.group_size, kIter, &buffer);
    benchmark::DoNotOptimize(buffer.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * SendCount(request, c.group_size)));
}

void BM_FillReference(benchmark::State& state, Case c) {
  const OpRequest request = RequestFor(c);
  const size_t n = SendCount(request, c.group_size);
  std::vector<char> buffer(n * SizeOf(request.dtype));
  for (auto _ : state) {
    for (size_t i = 0; i < n; ++i) {
      StoreElement(request.dtype, buffer.data(), i, PatternValue(request, kRank, c.group_size, i, kIter));
    }
    benchmark::DoNotOptimize(buffer.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
}

void BM_Check(benchmark::State& state, Case c) {
  const OpRequest request = RequestFor(c);
  const std::vector<char> output = CorrectOutput(request, c.group_size);
  for (auto _ : state) {
    Status s = CheckOutput(request, kRank, c.group_size, kIter, output);
    if (!s.ok()) state.SkipWithError(s.message().c_str());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * RecvCount(request, c.group_size)));
}

void BM_CheckReference(benchmark::State& state, Case c) {
  const OpRequest request = RequestFor(c);
  const std::vector<char> output = CorrectOutput(request, c.group_size);
  const size_t n = RecvCount(request, c.group_size);
  for (auto _ : state) {
    size_t wrong = 0;
    for (size_t i = 0; i < n; ++i) {
      wrong += LoadElement(request.dtype, output.data(), i) != ExpectedValue(request, kRank, c.group_size, i, kIter);
    }
    if (wrong != 0) state.SkipWithError("reference check failed on a correct output");
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
}

// Keeps each run's time per element and prints reference/fast per case and kind.
class RatioReporter : public benchmark::BenchmarkReporter {
 public:
  RatioReporter(benchmark::BenchmarkReporter* inner, FILE* summary) : inner_(inner), summary_(summary) {}

  bool ReportContext(const Context& context) override { return inner_->ReportContext(context); }

  void ReportRuns(const std::vector<Run>& runs) override {
    inner_->ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Iteration || run.error_occurred) continue;
      auto items = run.counters.find("items_per_second");
      if (items == run.counters.end() || items->second.value <= 0) continue;
      Mean& m = ns_per_element_[run.benchmark_name()];  // repetitions share the name
      m.total += 1e9 / items->second.value;
      m.n += 1;
    }
  }

  void Finalize() override {
    inner_->Finalize();
    std::fprintf(summary_, "\nfast path against the per-element definitions, CPU time per element, same run:\n");
    for (const char* kind : {"Fill", "Check"}) {
      for (const Case& c : kCases) {
        auto fast = ns_per_element_.find(std::string("BM_") + kind + "/" + c.name);
        auto reference = ns_per_element_.find(std::string("BM_") + kind + "Reference/" + c.name);
        if (fast == ns_per_element_.end() || reference == ns_per_element_.end()) continue;
        const double fast_ns = fast->second.Value(), reference_ns = reference->second.Value();
        std::fprintf(summary_, "%-6s %-28s reference/fast = %6.1f  (%6.2f ns per element, reference %6.2f)\n", kind,
                     c.name, reference_ns / fast_ns, fast_ns, reference_ns);
      }
    }
    std::fflush(summary_);
  }

 private:
  struct Mean {
    double total = 0;
    int n = 0;
    double Value() const { return total / n; }
  };
  benchmark::BenchmarkReporter* inner_;  // not owned
  FILE* summary_;
  std::map<std::string, Mean> ns_per_element_;
};

void RegisterAll() {
  for (const Case& c : kCases) {
    benchmark::RegisterBenchmark((std::string("BM_Fill/") + c.name).c_str(), BM_Fill, c);
    benchmark::RegisterBenchmark((std::string("BM_FillReference/") + c.name).c_str(), BM_FillReference, c);
    benchmark::RegisterBenchmark((std::string("BM_Check/") + c.name).c_str(), BM_Check, c);
    benchmark::RegisterBenchmark((std::string("BM_CheckReference/") + c.name).c_str(), BM_CheckReference, c);
  }
}

}  // namespace
}  // namespace commbench

int main(int argc, char** argv) {
  bool json = false;
  for (int i = 1; i < argc; ++i) json = json || std::strcmp(argv[i], "--benchmark_format=json") == 0;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  commbench::RegisterAll();
  commbench::RatioReporter reporter(benchmark::CreateDefaultDisplayReporter(), json ? stderr : stdout);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
