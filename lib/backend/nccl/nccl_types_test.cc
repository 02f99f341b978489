#include "lib/backend/nccl/nccl_types.h"

#include <gtest/gtest.h>

#include "lib/backend/nccl/nccl_include.h"

namespace commbench::nccl {
namespace {

TEST(NcclTypesTest, DataTypes) {
  EXPECT_EQ(ToNcclDataType(DataType::kF32), ncclFloat32);
  EXPECT_EQ(ToNcclDataType(DataType::kF64), ncclFloat64);
  EXPECT_EQ(ToNcclDataType(DataType::kI32), ncclInt32);
  EXPECT_EQ(ToNcclDataType(DataType::kF16), ncclFloat16);
  EXPECT_EQ(ToNcclDataType(DataType::kBF16), ncclBfloat16);
  for (DataType t : AllDataTypes()) EXPECT_GE(ToNcclDataType(t), 0) << Name(t);
}

TEST(NcclTypesTest, ReduceOps) {
  EXPECT_EQ(ToNcclRedOp(ReduceOp::kSum), ncclSum);
  EXPECT_EQ(ToNcclRedOp(ReduceOp::kMax), ncclMax);
  EXPECT_EQ(ToNcclRedOp(ReduceOp::kMin), ncclMin);
  EXPECT_EQ(ToNcclRedOp(ReduceOp::kProd), ncclProd);
  for (ReduceOp r : AllReduceOps()) EXPECT_GE(ToNcclRedOp(r), 0) << Name(r);
}

TEST(NcclTypesTest, ResultsCarryNcclsMessage) {
  EXPECT_TRUE(FromNcclResult(ncclSuccess, nullptr, "x").ok());
  Status s = FromNcclResult(ncclInvalidArgument, nullptr, "ncclAllReduce");
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_EQ(s.message().rfind("ncclAllReduce: invalid argument", 0), 0u) << s.message();
}

}  // namespace
}  // namespace commbench::nccl
