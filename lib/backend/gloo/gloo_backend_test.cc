// The gloo backend with real Gloo contexts over loopback TCP; ranks are threads of this test process.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <iostream>
#include <thread>

#include "lib/backend/backend.h"
#include "lib/backend/gloo/control_plane.h"
#include "lib/backend/testing/thread_group.h"
#include "lib/core/temp_dir.h"

namespace commbench {
namespace {

double ProcessCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// Runs `request` on a group of n thread-ranks for two checked iterations; returns each rank's status.
std::vector<Status> RunGroup(int n, const OpRequest& request) {
  auto backend = CreateBackend("gloo");
  Status supported = backend.ok() ? (*backend)->Supports(request, n) : backend.status();
  if (!supported.ok()) return std::vector<Status>(static_cast<size_t>(n), supported);
  auto run = [&] {
    return testing::RunThreads(
        "gloo", n, [&](int rank, Communicator* comm) { return testing::RunAndCheck(comm, request, rank, n, 2); });
  };
  std::vector<Status> results = run();
  // Gloo's TCP connect is refused now and then among the ~650 groups this suite connects (1 run in about 13 here;
  // also pytorch/gloo#33): such a group is connected again, once, under fresh store keys. A wrong result is never
  // retried.
  const bool refused = std::any_of(results.begin(), results.end(), [](const Status& s) {
    return s.message().find("could not connect") != std::string::npos;
  });
  if (!refused) return results;
  std::cout << "gloo: a connect was refused; connecting the group again: " << request.count << " elements\n";
  return run();
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
  r.gpu.stream = StreamKind::kLegacyDefault;
  EXPECT_FALSE(backend->Supports(r, 2).ok());
  EXPECT_FALSE(CreateBackend("nope").ok());
}

// Runs body(rank, plane) on n thread ranks, each with its own control plane; they leave together.
void OnControlPlanes(int n, const std::function<void(int, ControlPlane*)>& body) {
  TempDir dir("commbench-control-plane-");
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
      body(r, plane->get());
      departure.LeaveTogether();
    });
  }
  for (auto& t : threads) t.join();
}

void MaxAllAndBarrierRounds(int n) {
  OnControlPlanes(n, [&](int r, ControlPlane* plane) {
    for (int round = 0; round < 40; ++round) {
      std::vector<double> values{static_cast<double>(r + round), static_cast<double>(-r)};
      values.resize(static_cast<size_t>(1 + round % 4), -1e300);
      Status max_all = plane->MaxAll(&values);
      ASSERT_TRUE(max_all.ok()) << max_all.message();
      EXPECT_EQ(values[0], n - 1 + round) << "round " << round;
      if (values.size() > 1) {
        EXPECT_EQ(values[1], 0) << "round " << round;
      }
      Status barrier = plane->Barrier();
      ASSERT_TRUE(barrier.ok()) << barrier.message();
      Status iteration_barrier = plane->IterationBarrier();  // interleaved with the others on the same context
      ASSERT_TRUE(iteration_barrier.ok()) << iteration_barrier.message();
    }
    std::vector<double> too_many(ControlPlane::kMaxValues + 1, 0.0);
    EXPECT_FALSE(plane->MaxAll(&too_many).ok());
  });
}

// The same posted receives serve every call: many rounds of max-reductions of 1..4 values and barriers agree,
// whichever rank holds the max and however many ranks rank 0 gathers from.
TEST(ControlPlaneTest, MaxAllAndBarrierAgreeRoundAfterRound) {
  for (int n : {2, 3, 9}) {
    SCOPED_TRACE("world of " + std::to_string(n));
    MaxAllAndBarrierRounds(n);
  }
}

// Once every rank has arrived, holds rank 0 for 300 ms while its peers go on to the next barrier, and keeps the
// CPU seconds this process used meanwhile: what waiting for a late rank costs.
class LateRankZero {
 public:
  explicit LateRankZero(int n) : n_(n) {}
  void Arrive(int rank) {
    ready_.fetch_add(1);
    while (ready_.load() < n_) std::this_thread::yield();
    if (rank != 0) return;
    const double before = ProcessCpuSeconds();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    cpu_s_ = ProcessCpuSeconds() - before;
  }
  double cpu_s() const { return cpu_s_; }

 private:
  const int n_;
  std::atomic<int> ready_{0};
  double cpu_s_ = 0;
};

// A rank that reaches the barrier 300 ms after its peers is not polled for meanwhile: the peers' messages land in
// receive buffers that are already posted. Before, they waited in the late rank's sockets and its Gloo event loop
// spun on them for the whole 300 ms (about 300 ms of CPU in this process, against a few ms now).
TEST(ControlPlaneTest, ALateRankAtTheBarrierIsNotPolledFor) {
  const int n = 3;
  LateRankZero late(n);
  OnControlPlanes(n, [&](int r, ControlPlane* plane) {
    ASSERT_TRUE(plane->Barrier().ok());  // everyone connected and idle
    late.Arrive(r);
    ASSERT_TRUE(plane->Barrier().ok());
  });
  EXPECT_LT(late.cpu_s(), 0.1) << "CPU seconds this process used while one rank was late";
}

// The allgather ring receives each block straight into the peer's output, where the peer's next op may write
// before a check read it; the allreduce and reduce-scatter algorithms receive into buffers of their own.
TEST(GlooGroupTest, OnlyAllgatherLetsAPeerWriteTheOutputEarly) {
  auto statuses = testing::RunThreads("gloo", 2, [&](int, Communicator* comm) -> Status {
    for (Collective op : {Collective::kAllreduce, Collective::kAllgather, Collective::kReduceScatter}) {
      OpRequest request;
      request.op = op;
      request.count = 8;
      ASSIGN_OR_RETURN(auto work, comm->Prepare(request));
      if (work->OutputHeldUntilNextRun() != (op != Collective::kAllgather)) {
        return Internal(std::string(Name(op)) + ": wrong OutputHeldUntilNextRun");
      }
    }
    return OkStatus();
  });
  for (const Status& s : statuses) EXPECT_TRUE(s.ok()) << s.message();
}

// The same for a group's own barrier (the one after the first and the sampled checks): a rank 300 ms late is not
// polled for. A BarrierAllToAll built per call (its receive buffers not yet there when the peers' messages come)
// used 0.30 CPU s here.
TEST(GlooGroupTest, ALateRankAtTheGroupBarrierIsNotPolledFor) {
  const int n = 3;
  LateRankZero late(n);
  auto statuses = testing::RunThreads("gloo", n, [&](int rank, Communicator* comm) -> Status {
    RETURN_IF_ERROR(comm->Barrier());  // everyone connected and idle
    late.Arrive(rank);
    for (int round = 0; round < 3; ++round) RETURN_IF_ERROR(comm->Barrier());
    return OkStatus();
  });
  for (const Status& s : statuses) EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_LT(late.cpu_s(), 0.1) << "CPU seconds this process used while one rank was late";
}

}  // namespace
}  // namespace commbench
