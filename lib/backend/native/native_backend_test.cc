// The native backend end to end over shared memory: ranks are threads of this process.
#include <dirent.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "lib/backend/native/schedule.h"
#include "lib/backend/native/shm/segment.h"
#include "lib/backend/testing/thread_group.h"
#include "lib/measure/pattern.h"

namespace commbench {
namespace native {
namespace {

using testing::RunAndCheck;
using testing::RunThreads;

struct Case {
  OpRequest request;
};

std::vector<OpRequest> Cases(const std::vector<size_t>& counts, const std::vector<DataType>& dtypes,
                             const std::vector<ReduceOp>& reduces) {
  std::vector<OpRequest> out;
  for (const auto& algo : AlgorithmTable()) {
    for (Collective op : {algo.op}) {
      for (DataType dtype : dtypes) {
        for (ReduceOp reduce : reduces) {
          if (op == Collective::kAllgather && reduce != reduces[0]) continue;
          for (bool in_place : {false, true}) {
            for (size_t count : counts) {
              OpRequest r;
              r.op = op;
              r.algo = algo.name;
              r.dtype = dtype;
              r.reduce = reduce;
              r.in_place = in_place;
              r.count = count;
              out.push_back(r);
            }
          }
        }
      }
    }
  }
  return out;
}

void RunCases(int n, const std::vector<OpRequest>& cases, int iters, const std::string& backend = "native") {
  auto results = RunThreads(backend, n, [&](int rank, Communicator* comm) -> Status {
    for (const auto& request : cases) RETURN_IF_ERROR(RunAndCheck(comm, request, rank, n, iters));
    return OkStatus();
  });
  for (size_t r = 0; r < results.size(); ++r) {
    EXPECT_TRUE(results[r].ok()) << "n=" << n << " rank " << r << ": " << results[r].message();
  }
}

class NativeShmTest : public ::testing::TestWithParam<int> {};

// Every collective x algorithm x dtype x in/out-of-place, small counts, sum.
TEST_P(NativeShmTest, EveryAlgorithmDtypeAndPlacement) {
  RunCases(GetParam(), Cases({0, 1, 7, 1023}, AllDataTypes(), {ReduceOp::kSum}), 2);
}

// Every reduction op on two dtypes (f32 and the f32-accumulating f16).
TEST_P(NativeShmTest, EveryReduceOp) {
  RunCases(GetParam(), Cases({7, 1023}, {DataType::kF32, DataType::kF16}, AllReduceOps()), 1);
}

INSTANTIATE_TEST_SUITE_P(Ranks, NativeShmTest, ::testing::Values(1, 2, 3, 4, 5, 8));

// The same schedules over sockets (backend native-tcp); f32 and f16 keep the socket count of the test low.
class NativeTcpTest : public ::testing::TestWithParam<int> {};

TEST_P(NativeTcpTest, EveryAlgorithmAndPlacement) {
  RunCases(GetParam(), Cases({0, 1, 7, 1023}, {DataType::kF32, DataType::kF16}, {ReduceOp::kSum}), 2, "native-tcp");
}

INSTANTIATE_TEST_SUITE_P(Ranks, NativeTcpTest, ::testing::Values(1, 2, 3, 5, 8));

TEST(NativeTcpBigTest, MillionPlusThree) {
  std::vector<OpRequest> cases;
  for (const char* algo : {"ring", "hd", "twoshot"}) {
    OpRequest r;
    r.count = (1u << 20) + 3;
    r.algo = algo;
    cases.push_back(r);
  }
  RunCases(3, cases, 1, "native-tcp");
}

// Working sets past 32 MiB, where the pulls that write an output for the last time stream (FinalPulls), and
// twoshot pipelined over 1 MiB chunks (COMMBENCH_NATIVE_CHUNK_BYTES), counts not divisible by the chunks.
TEST(NativeShmBigTest, StreamedFinalOutputsAndPipelinedTwoShot) {
  std::vector<OpRequest> cases;
  for (Collective op : {Collective::kAllreduce, Collective::kAllgather, Collective::kReduceScatter}) {
    OpRequest r;
    r.op = op;
    r.count = op == Collective::kAllreduce ? (size_t{4} << 20) + 5 : (size_t{2} << 20) + 5;
    cases.push_back(r);
  }
  RunCases(2, cases, 1);
  ASSERT_EQ(setenv("COMMBENCH_NATIVE_CHUNK_BYTES", "1048576", 1), 0);
  RunCases(2, {cases[0]}, 2);
  unsetenv("COMMBENCH_NATIVE_CHUNK_BYTES");
}

// 1M+3 elements: not divisible by any rank count here, and larger than the caches.
TEST(NativeShmBigTest, MillionPlusThree) {
  std::vector<OpRequest> cases;
  for (const char* algo : {"direct", "twoshot", "ring", "hd"}) {
    OpRequest r;
    r.count = (1u << 20) + 3;
    r.algo = algo;
    r.in_place = std::string(algo) == "ring";
    cases.push_back(r);
  }
  for (const char* algo : {"direct", "ring", "hd"}) {
    for (Collective op : {Collective::kAllgather, Collective::kReduceScatter}) {
      OpRequest r;
      r.op = op;
      r.count = (1u << 18) + 3;
      r.algo = algo;
      r.dtype = DataType::kBF16;
      cases.push_back(r);
    }
  }
  RunCases(3, cases, 1);
  RunCases(2, {cases[1]}, 2);
}

TEST(NativeShmTest, AutoReportsWhatRan) {
  auto results = RunThreads("native", 2, [&](int, Communicator* comm) -> Status {
    OpRequest small, large;
    small.count = 4;
    large.count = 1 << 16;
    ASSIGN_OR_RETURN(auto w1, comm->Prepare(small));
    ASSIGN_OR_RETURN(auto w2, comm->Prepare(large));
    if (w1->algo() != "direct" || w2->algo() != "twoshot") return Internal(w1->algo() + " " + w2->algo());
    return OkStatus();
  });
  for (const auto& st : results) EXPECT_TRUE(st.ok()) << st.message();
}

TEST(NativeShmTest, NoSegmentNameOutlivesSetup) {
  auto results = RunThreads("native", 3, [&](int rank, Communicator* comm) -> Status {
    OpRequest r;
    r.count = 100;
    RETURN_IF_ERROR(RunAndCheck(comm, r, rank, 3, 1));
    return comm->Barrier();
  });
  for (const auto& st : results) EXPECT_TRUE(st.ok()) << st.message();
  std::string prefix = std::string(kSegmentPrefix + 1) + std::to_string(getpid()) + "-";
  DIR* dir = opendir("/dev/shm");
  ASSERT_NE(dir, nullptr);
  while (dirent* e = readdir(dir)) EXPECT_NE(std::string(e->d_name).rfind(prefix, 0), 0u) << e->d_name;
  closedir(dir);
}

// What a group says it runs over (Communicator::transport, recorded per rank in the result) is the transport it
// connected through the store: shm for threads of one process, tcp where forced by the backend or the variable.
TEST(NativeTransportTest, AGroupReportsTheTransportItConnectedOver) {
  auto reported = [](const std::string& backend) {
    std::vector<commbench::Transport> seen(2, commbench::Transport::kUnknown);
    auto results = RunThreads(backend, 2, [&](int rank, Communicator* comm) -> Status {
      seen[static_cast<size_t>(rank)] = comm->transport();
      OpRequest r;
      r.count = 7;
      return RunAndCheck(comm, r, rank, 2, 1);
    });
    for (const auto& st : results) EXPECT_TRUE(st.ok()) << backend << ": " << st.message();
    EXPECT_EQ(seen[0], seen[1]) << backend;
    return std::string(Name(seen[0]));
  };
  unsetenv("COMMBENCH_NATIVE_TRANSPORT");  // auto
  EXPECT_EQ(reported("native"), "shm");    // every rank on this host
  EXPECT_EQ(reported("native-tcp"), "tcp");
  setenv("COMMBENCH_NATIVE_TRANSPORT", "tcp", 1);
  EXPECT_EQ(reported("native"), "tcp");
  setenv("COMMBENCH_NATIVE_TRANSPORT", "shm", 1);
  EXPECT_EQ(reported("native"), "shm");
  unsetenv("COMMBENCH_NATIVE_TRANSPORT");
}

}  // namespace
}  // namespace native
}  // namespace commbench
