#include "lib/core/types.h"

#include <gtest/gtest.h>

namespace commbench {
namespace {

TEST(TypesTest, NamesRoundTrip) {
  for (Collective c : AllCollectives()) EXPECT_EQ(*ParseCollective(Name(c)), c);
  for (DataType t : AllDataTypes()) EXPECT_EQ(*ParseDataType(Name(t)), t);
  for (ReduceOp r : AllReduceOps()) EXPECT_EQ(*ParseReduceOp(Name(r)), r);
}

TEST(TypesTest, UnknownNamesListWhatIsAccepted) {
  auto s = ParseDataType("f8");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.status().message(), "unknown dtype 'f8' (accepted: f32, f64, i32, f16, bf16)");
}

TEST(TypesTest, Sizes) {
  EXPECT_EQ(SizeOf(DataType::kF32), 4u);
  EXPECT_EQ(SizeOf(DataType::kF64), 8u);
  EXPECT_EQ(SizeOf(DataType::kBF16), 2u);
  EXPECT_FALSE(IsReduction(Collective::kAllgather));
  EXPECT_TRUE(IsReduction(Collective::kReduceScatter));
}

}  // namespace
}  // namespace commbench
