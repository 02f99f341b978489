// The gloo backend with real Gloo contexts over loopback TCP; ranks are threads of this test process.
#include <stdlib.h>

#include <filesystem>
#include <thread>

#include <gtest/gtest.h>

#include "lib/backend/backend.h"
#include "lib/backend/gloo/control_plane.h"
#include "lib/measure/pattern.h"

namespace commbench {
namespace {

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/commbench-gloo-test-XXXXXX";
    path_ = mkdtemp(tmpl);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Runs `request` on a group of n thread-ranks for two iterations and returns each rank's check result.
std::vector<Status> RunGroup(int n, const OpRequest& request, const std::string& prefix) {
  static TempDir dir;
  std::vector<Status> results(static_cast<size_t>(n));
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      auto status = [&]() -> Status {
        auto backend = CreateBackend("gloo");
        RETURN_IF_ERROR(backend.status());
        RETURN_IF_ERROR((*backend)->Supports(request, n));
        auto store = NewFileStore(dir.path());
        PrefixStore group_store(prefix, store.get());
        ConnectRequest connect;
        connect.place = RankPlace{r, n, 0, r, n, r};
        connect.store = &group_store;
        connect.timeout = std::chrono::milliseconds(20000);
        ASSIGN_OR_RETURN(auto comm, (*backend)->Connect(connect));
        ASSIGN_OR_RETURN(auto work, comm->Prepare(request));
        for (uint64_t iter : {0, 1}) {
          std::vector<char> in, out(RecvCount(request, n) * SizeOf(request.dtype));
          FillInput(request, r, n, iter, &in);
          RETURN_IF_ERROR(work->SetInput(in.data(), in.size()));
          RETURN_IF_ERROR(work->Run());
          RETURN_IF_ERROR(work->GetOutput(out.data(), out.size()));
          RETURN_IF_ERROR(CheckOutput(request, r, n, iter, out));
          // Gloo's allgather writes straight into peers' output buffers: nobody may start the next
          // iteration before everyone has read this one (the measure loop does the same).
          RETURN_IF_ERROR(comm->Barrier());
        }
        return comm->Barrier();
      }();
      results[static_cast<size_t>(r)] = status;
    });
  }
  for (auto& t : threads) t.join();
  return results;
}

struct Case {
  Collective op;
  std::string algo;
};

TEST(GlooBackendTest, EveryOpAlgoDtypeIsCorrect) {
  const std::vector<Case> cases = {{Collective::kAllreduce, "ring"},
                                   {Collective::kAllreduce, "ring_chunked"},
                                   {Collective::kAllreduce, "halving_doubling"},
                                   {Collective::kAllgather, "ring"},
                                   {Collective::kReduceScatter, "halving_doubling"}};
  int id = 0;
  for (const auto& c : cases) {
    for (DataType dtype : {DataType::kF32, DataType::kF64, DataType::kI32, DataType::kF16}) {
      for (ReduceOp reduce : {ReduceOp::kSum, ReduceOp::kMax, ReduceOp::kMin, ReduceOp::kProd}) {
        if (!IsReduction(c.op) && reduce != ReduceOp::kSum) continue;
        for (int n : {1, 2, 3}) {
          for (size_t count : {size_t{1}, size_t{7}, size_t{1000}}) {
            OpRequest r;
            r.op = c.op;
            r.algo = c.algo;
            r.dtype = dtype;
            r.reduce = reduce;
            r.count = count;
            r.in_place = c.op != Collective::kAllgather;
            auto results = RunGroup(n, r, "case" + std::to_string(id++));
            for (int rank = 0; rank < n; ++rank) {
              EXPECT_TRUE(results[static_cast<size_t>(rank)].ok())
                  << Name(c.op) << "/" << c.algo << "/" << Name(dtype) << "/" << Name(reduce) << " n=" << n
                  << " count=" << count << " rank " << rank << ": " << results[static_cast<size_t>(rank)].message();
            }
          }
        }
      }
    }
  }
}

TEST(GlooBackendTest, SupportsExplainsWhatItRejects) {
  auto backend = *CreateBackend("gloo");
  OpRequest r;
  r.dtype = DataType::kBF16;
  EXPECT_EQ(backend->Supports(r, 2).message(), "gloo has no bf16 type");
  r.dtype = DataType::kF32;
  r.in_place = false;
  EXPECT_EQ(backend->Supports(r, 2).message(), "gloo's allreduce works in place only");
  r.in_place = true;
  r.algo = "bcube9";
  EXPECT_EQ(backend->Supports(r, 2).message(), "gloo has no allreduce algorithm 'bcube9'");
  r.algo = "ring";
  r.gpu.stream = "legacy-default";
  EXPECT_FALSE(backend->Supports(r, 2).ok());
  EXPECT_FALSE(CreateBackend("nope").ok());
}

TEST(ControlPlaneTest, MaxAllAgrees) {
  TempDir dir;
  const int n = 3;
  std::vector<std::vector<double>> values(n);
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      auto store = NewFileStore(dir.path());
      GlooConnectOptions options;
      options.rank = r;
      options.size = n;
      options.store = store.get();
      auto plane = ControlPlane::Connect(options);
      ASSERT_TRUE(plane.ok()) << plane.status().message();
      values[static_cast<size_t>(r)] = {static_cast<double>(r), static_cast<double>(-r)};
      ASSERT_TRUE((*plane)->MaxAll(&values[static_cast<size_t>(r)]).ok());
      ASSERT_TRUE((*plane)->Barrier().ok());
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& v : values) EXPECT_EQ(v, (std::vector<double>{2, 0}));
}

}  // namespace
}  // namespace commbench
