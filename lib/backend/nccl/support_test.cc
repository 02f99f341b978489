#include "lib/backend/nccl/support.h"

#include <gtest/gtest.h>

namespace commbench::nccl {
namespace {

TEST(NcclSupportTest, EveryCollectiveDtypeAndReductionIsSupported) {
  for (Collective op : AllCollectives()) {
    for (DataType t : AllDataTypes()) {
      for (ReduceOp r : AllReduceOps()) {
        for (bool in_place : {false, true}) {
          OpRequest req;
          req.op = op;
          req.dtype = t;
          req.reduce = r;
          req.count = 100;
          req.in_place = in_place;
          EXPECT_TRUE(NcclSupports(req, 4).ok()) << DescribeCall(req, 4);
        }
      }
    }
  }
}

TEST(NcclSupportTest, OnlyAutoAlgorithm) {
  OpRequest req;
  req.algo = "ring";
  Status s = NcclSupports(req, 2);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("nccl: algorithm 'ring' cannot be chosen per call (accepted: auto;"), std::string::npos)
      << s.message();
  auto algos = NcclAlgorithms();
  ASSERT_EQ(algos.size(), AllCollectives().size());
  for (const auto& a : algos) EXPECT_EQ(a.name, "auto");
}

TEST(NcclSupportTest, ImpossibleGpuAxesBecomeSkipNotes) {
  OpRequest req;
  req.gpu.stream = StreamKind::kLegacyDefault;
  req.gpu.graph = true;
  Status s = NcclSupports(req, 1);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("nccl: --graph with --stream legacy-default"), std::string::npos) << s.message();
  req.gpu.graph = false;
  EXPECT_TRUE(NcclSupports(req, 1).ok());  // the legacy default stream without a graph runs
  EXPECT_FALSE(NcclSupports(OpRequest{}, 0).ok());
}

TEST(NcclSupportTest, CapabilitiesSayGpu) {
  BackendCapabilities caps = NcclCapabilities();
  EXPECT_EQ(caps.device, DeviceKind::kGpu);
  EXPECT_FALSE(caps.launcher.has_value());
  EXPECT_FALSE(caps.one_rank_per_process);
  EXPECT_EQ(caps.dtypes, AllDataTypes());
}

TEST(NcclSupportTest, DescribeCallNamesTheCall) {
  OpRequest req;
  req.op = Collective::kReduceScatter;
  req.dtype = DataType::kBF16;
  req.reduce = ReduceOp::kMax;
  req.count = 10;
  req.in_place = true;
  EXPECT_EQ(DescribeCall(req, 4), "reduce_scatter bf16 max 80 B in-place");  // send side: 10*4 elements * 2 B
  req.op = Collective::kAllgather;
  req.in_place = false;
  EXPECT_EQ(DescribeCall(req, 2), "allgather bf16 40 B out-of-place");
}

}  // namespace
}  // namespace commbench::nccl
