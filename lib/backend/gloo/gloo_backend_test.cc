// The gloo backend with real Gloo contexts over loopback TCP; ranks are threads of this test process.
#include <thread>

#include <gtest/gtest.h>

#include "lib/backend/backend.h"
#include "lib/backend/gloo/control_plane.h"
#include "lib/backend/testing/thread_group.h"
#include "lib/core/temp_dir.h"

namespace commbench {
namespace {

// Runs `request` on a group of n thread-ranks for two checked iterations; returns each rank's status.
std::vector<Status> RunGroup(int n, const OpRequest& request) {
  auto backend = CreateBackend("gloo");
  Status supported = backend.ok() ? (*backend)->Supports(request, n) : backend.status();
  if (!supported.ok()) return std::vector<Status>(static_cast<size_t>(n), supported);
  return testing::RunThreads("gloo", n, [&](int rank, Communicator* comm) {
    return testing::RunAndCheck(comm, request, rank, n, 2);
  });
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
                                   {Collective::kReduceScatter, "ring_slice"},
                                   {Collective::kReduceScatter, "halving_doubling"}};
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
            auto results = RunGroup(n, r);
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
  TempDir dir("commbench-control-plane-");
  const int n = 3;
  std::vector<std::vector<double>> values(n);
  std::vector<std::thread> threads;
  testing::ExitLatch latch(n);
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      testing::Departure departure(&latch);
      auto store = NewFileStore(dir.path());
      GlooConnectOptions options;
      options.rank = r;
      options.size = n;
      options.store = store.get();
      auto plane = ControlPlane::Connect(options);
      ASSERT_TRUE(plane.ok()) << plane.status().message();
      values[static_cast<size_t>(r)] = {static_cast<double>(r), static_cast<double>(-r)};
      Status max_all = (*plane)->MaxAll(&values[static_cast<size_t>(r)]);
      ASSERT_TRUE(max_all.ok()) << max_all.message();
      Status barrier = (*plane)->Barrier();
      departure.LeaveTogether();
      ASSERT_TRUE(barrier.ok()) << barrier.message();
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& v : values) EXPECT_EQ(v, (std::vector<double>{2, 0}));
}

}  // namespace
}  // namespace commbench
