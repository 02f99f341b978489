// The nccl backend through the registry, as the worker uses it. Registration, availability and Supports run in
// every build; collectives need a device and skip without one, printing the runtime's reason.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "lib/backend/backend.h"
#include "lib/backend/nccl/fingerprint.h"
#include "lib/core/temp_dir.h"
#include "lib/measure/pattern.h"

namespace commbench {
namespace {

using std::chrono::milliseconds;

std::unique_ptr<Backend> Nccl() {
  auto b = CreateBackend("nccl");
  EXPECT_TRUE(b.ok()) << b.status().message();
  return b.ok() ? std::move(b).value() : nullptr;
}

#define SKIP_WITHOUT_DEVICE(backend)                                                  \
  do {                                                                                \
    Status available = (backend)->Available();                                        \
    if (!available.ok()) GTEST_SKIP() << "nccl unavailable: " << available.message(); \
  } while (0)

TEST(NcclBackendTest, IsRegistered) {
  auto names = RegisteredBackends();
  EXPECT_NE(std::find(names.begin(), names.end(), "nccl"), names.end());
  auto b = Nccl();
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->name(), "nccl");
  EXPECT_EQ(b->Algorithms().size(), AllCollectives().size());
  EXPECT_EQ(b->Version().rfind("nccl ", 0), 0u) << b->Version();
}

TEST(NcclBackendTest, UnavailableSaysWhy) {
  auto b = Nccl();
  ASSERT_NE(b, nullptr);
  Status available = b->Available();
  std::printf("nccl: %s (%s)\n", available.ok() ? "available" : available.message().c_str(), b->Version().c_str());
  if (available.ok()) return;
  EXPECT_EQ(available.code(), StatusCode::kUnavailable);
#ifdef COMMBENCH_HAVE_CUDA
  EXPECT_NE(available.message().find("cudaGetDeviceCount"), std::string::npos) << available.message();
#else
  EXPECT_EQ(available.message().rfind("built without CUDA: ", 0), 0u) << available.message();
  EXPECT_EQ(b->Supports(OpRequest{}, 1).code(), StatusCode::kUnavailable);
#endif
  ConnectRequest request;
  auto comm = b->Connect(request);
  ASSERT_FALSE(comm.ok());
  EXPECT_EQ(comm.status().message(), available.message());
}

TEST(NcclBackendTest, SupportsRejectsWhatCannotRun) {
  auto b = Nccl();
  ASSERT_NE(b, nullptr);
  OpRequest req;
  req.algo = "tree";
  EXPECT_EQ(b->Supports(req, 2).code(), StatusCode::kInvalidArgument);
  req.algo = "auto";
  req.gpu.stream = StreamKind::kLegacyDefault;
  req.gpu.graph = true;
  EXPECT_EQ(b->Supports(req, 2).code(), StatusCode::kInvalidArgument);
}

// ---- Device tests

// Runs `request` on `groups` groups of `group_size` thread-ranks (each with its own communicator, as
// --ranks-per-process does), for a few iterations with changing and repeated inputs, and checks every output.
// Returns each rank's status and, in *device_us, rank 0's last device time.
std::vector<Status> RunGroups(int groups, int group_size, const OpRequest& request, double* device_us = nullptr) {
  static TempDir dir("commbench-nccl-test-");
  static int run = 0;
  const std::string prefix = "run" + std::to_string(run++);
  const int world = groups * group_size;
  std::vector<Status> results(static_cast<size_t>(world));
  std::vector<std::thread> threads;
  for (int rank = 0; rank < world; ++rank) {
    threads.emplace_back([&, rank] {
      results[rank] = [&]() -> Status {
        ASSIGN_OR_RETURN(auto backend, CreateBackend("nccl"));
        RETURN_IF_ERROR(backend->Supports(request, group_size));
        auto base = NewFileStore(dir.path());
        RankPlace place;
        place.rank = rank;
        place.world = world;
        place.group = rank / group_size;
        place.group_rank = rank % group_size;
        place.group_size = group_size;
        place.local_rank = rank;
        PrefixStore store(prefix + "/g" + std::to_string(place.group), base.get());
        ConnectRequest connect;
        connect.place = place;
        connect.store = &store;
        connect.timeout = milliseconds(60000);
        ASSIGN_OR_RETURN(auto comm, backend->Connect(connect));
        ASSIGN_OR_RETURN(auto work, comm->Prepare(request));
        std::vector<char> input, output(RecvCount(request, group_size) * SizeOf(request.dtype));
        // Iterations 1, 1, 2: an input, the same one again as the loop repeats its middle input (RestoreInput: for
        // in-place the restore of what the collective overwrote), and a new one.
        for (uint64_t iter : {1, 1, 2}) {
          const bool again = !input.empty() && iter == 1;
          FillInput(request, place.group_rank, group_size, iter, &input);
          RETURN_IF_ERROR(again ? work->RestoreInput(input.data(), input.size())
                                : work->SetInput(input.data(), input.size()));
          RETURN_IF_ERROR(work->Run());
          RETURN_IF_ERROR(comm->Barrier());
          RETURN_IF_ERROR(work->GetOutput(output.data(), output.size()));
          RETURN_IF_ERROR(CheckOutput(request, place.group_rank, group_size, iter, output));
        }
        if (rank == 0 && device_us != nullptr) *device_us = work->last_device_time_us();
        return OkStatus();
      }();
    });
  }
  for (auto& t : threads) t.join();
  return results;
}

void ExpectAllOk(const std::vector<Status>& results, const std::string& what) {
  for (size_t r = 0; r < results.size(); ++r)
    EXPECT_TRUE(results[r].ok()) << what << " rank " << r << ": " << results[r].message();
}

TEST(NcclDeviceTest, EveryCollectiveDtypeAndPlacement) {
  auto b = Nccl();
  ASSERT_NE(b, nullptr);
  SKIP_WITHOUT_DEVICE(b);
  for (Collective op : AllCollectives()) {
    for (DataType t : AllDataTypes()) {
      for (bool in_place : {false, true}) {
        OpRequest req;
        req.op = op;
        req.dtype = t;
        req.reduce = op == Collective::kAllgather ? ReduceOp::kSum : ReduceOp::kMax;
        req.count = 1000;
        req.in_place = in_place;
        req.gpu.sync = Sync::kStream;
        ExpectAllOk(RunGroups(1, 1, req), std::string(Name(op)) + " " + std::string(Name(t)));
      }
    }
  }
}

TEST(NcclDeviceTest, EveryReduction) {
  auto b = Nccl();
  ASSERT_NE(b, nullptr);
  SKIP_WITHOUT_DEVICE(b);
  for (ReduceOp r : AllReduceOps()) {
    OpRequest req;
    req.reduce = r;
    req.count = 4096;
    ExpectAllOk(RunGroups(1, 1, req), std::string(Name(r)));
  }
}

TEST(NcclDeviceTest, EveryStreamSyncAndH2dCombination) {
  auto b = Nccl();
  ASSERT_NE(b, nullptr);
  SKIP_WITHOUT_DEVICE(b);
  for (StreamKind stream : AllStreamKinds()) {
    for (H2dKind h2d : AllH2dKinds()) {
      for (Sync sync : {Sync::kStream, Sync::kEvent, Sync::kDevice, Sync::kNone}) {
        OpRequest req;
        req.count = 1 << 16;
        req.gpu.stream = stream;
        req.gpu.h2d = h2d;
        req.gpu.h2d_bytes = h2d == H2dKind::kNone ? 0 : 1 << 20;
        req.gpu.sync = sync;
        double device_us = -1;
        const std::string what =
            std::string(Name(stream)) + "/" + std::string(Name(h2d)) + "/" + std::string(Name(sync));
        ExpectAllOk(RunGroups(1, 1, req, &device_us), what);
        EXPECT_GT(device_us, 0) << what;  // GetOutput waited: all runs complete
      }
    }
  }
}

TEST(NcclDeviceTest, GraphReplaysCopyAndCollective) {
  auto b = Nccl();
  ASSERT_NE(b, nullptr);
  SKIP_WITHOUT_DEVICE(b);
  for (StreamKind stream : {StreamKind::kPerThread, StreamKind::kDedicated}) {
    for (Sync sync : {Sync::kStream, Sync::kEvent, Sync::kNone}) {
      OpRequest req;
      req.op = Collective::kAllgather;
      req.count = 1000;
      req.gpu.stream = stream;
      req.gpu.h2d = H2dKind::kPinned;
      req.gpu.sync = sync;
      req.gpu.graph = true;
      ExpectAllOk(RunGroups(1, 1, req), "graph " + std::string(Name(stream)) + "/" + std::string(Name(sync)));
    }
  }
}

// Scenario B's setting on a one-GPU machine: several groups of one rank, each a thread with its own
// communicator, sharing the legacy default stream.
TEST(NcclDeviceTest, ThreadsWithOwnCommunicatorsOnOneGpu) {
  auto b = Nccl();
  ASSERT_NE(b, nullptr);
  SKIP_WITHOUT_DEVICE(b);
  OpRequest req;
  req.count = 1 << 18;
  req.gpu.stream = StreamKind::kLegacyDefault;
  req.gpu.h2d = H2dKind::kPageable;
  req.gpu.sync = Sync::kStream;
  ExpectAllOk(RunGroups(4, 1, req), "4 groups on the legacy default stream");
  req.gpu.stream = StreamKind::kDedicated;
  req.gpu.h2d = H2dKind::kPinned;
  req.gpu.sync = Sync::kEvent;
  ExpectAllOk(RunGroups(4, 1, req), "4 groups on dedicated streams");
}

TEST(NcclDeviceTest, GroupsOfTwoWhenTwoGpus) {
  auto b = Nccl();
  ASSERT_NE(b, nullptr);
  SKIP_WITHOUT_DEVICE(b);
  // Group size 2 needs a GPU per rank: NCCL refuses two ranks of one communicator on the same GPU.
  const int devices = nccl::GpuFingerprint().device_count;
  if (devices < 2) GTEST_SKIP() << "needs two GPUs, this host has " << devices;
  for (Collective op : AllCollectives()) {
    OpRequest req;
    req.op = op;
    req.count = 1000;
    req.in_place = true;
    ExpectAllOk(RunGroups(1, 2, req), std::string(Name(op)) + " on 2 GPUs");
  }
}

}  // namespace
}  // namespace commbench
