#include "lib/backend/backend.h"

#include <gtest/gtest.h>

namespace commbench {
namespace {

// A CPU backend like gloo: no bf16, allgather out of place, the reductions in place.
BackendCapabilities GlooLike() {
  BackendCapabilities caps;
  caps.dtypes = {DataType::kF32, DataType::kF64, DataType::kI32, DataType::kF16};
  caps.in_place_ops = {Collective::kAllreduce, Collective::kReduceScatter};
  caps.out_of_place_ops = {Collective::kAllgather};
  return caps;
}

TEST(CheckCapabilitiesTest, DefaultsPass) {
  OpRequest r;
  r.in_place = true;
  EXPECT_TRUE(CheckCapabilities("gloo", GlooLike(), r).ok());
  EXPECT_TRUE(CheckCapabilities("any", BackendCapabilities{}, OpRequest{}).ok());
}

TEST(CheckCapabilitiesTest, DtypeComesFirst) {
  OpRequest r;
  r.dtype = DataType::kBF16;
  r.gpu.graph = true;
  Status s = CheckCapabilities("gloo", GlooLike(), r);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "gloo has no bf16 type");
}

TEST(CheckCapabilitiesTest, GpuAxesDoNotApplyToACpuBackend) {
  const std::string note = "native runs on the CPU: --stream, --h2d and --graph do not apply";
  OpRequest stream;
  stream.gpu.stream = StreamKind::kLegacyDefault;
  EXPECT_EQ(CheckCapabilities("native", BackendCapabilities{}, stream).message(), note);
  OpRequest h2d;
  h2d.gpu.h2d = H2dKind::kPinned;
  EXPECT_EQ(CheckCapabilities("native", BackendCapabilities{}, h2d).message(), note);
  OpRequest graph;
  graph.gpu.graph = true;
  EXPECT_EQ(CheckCapabilities("native", BackendCapabilities{}, graph).message(), note);
  // The same on a GPU backend is its own business (lib/cuda/plan.h).
  BackendCapabilities gpu;
  gpu.device = DeviceKind::kGpu;
  EXPECT_TRUE(CheckCapabilities("gpu", gpu, stream).ok());
  EXPECT_TRUE(CheckCapabilities("gpu", gpu, graph).ok());
}

TEST(CheckCapabilitiesTest, PlacementNotesNameTheOp) {
  OpRequest gather;
  gather.op = Collective::kAllgather;
  gather.in_place = true;
  EXPECT_EQ(CheckCapabilities("gloo", GlooLike(), gather).message(), "gloo's allgather works out of place only");
  gather.in_place = false;
  EXPECT_TRUE(CheckCapabilities("gloo", GlooLike(), gather).ok());
  OpRequest scatter;
  scatter.op = Collective::kReduceScatter;
  scatter.in_place = false;
  EXPECT_EQ(CheckCapabilities("gloo", GlooLike(), scatter).message(), "gloo's reduce_scatter works in place only");
}

}  // namespace
}  // namespace commbench
