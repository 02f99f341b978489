#include "lib/measure/pattern.h"

#include <gtest/gtest.h>

namespace commbench {
namespace {

OpRequest Request(Collective op, DataType dtype, ReduceOp reduce, size_t count) {
  OpRequest r;
  r.op = op;
  r.dtype = dtype;
  r.reduce = reduce;
  r.count = count;
  return r;
}

// Reduces the ranks' inputs by hand (a reference independent of ExpectedValue) and checks them.
TEST(PatternTest, HandReducedAllreducePasses) {
  for (DataType dtype : AllDataTypes()) {
    for (ReduceOp reduce : AllReduceOps()) {
      const int n = 3;
      OpRequest req = Request(Collective::kAllreduce, dtype, reduce, 37);
      std::vector<std::vector<char>> inputs(n);
      for (int r = 0; r < n; ++r) FillInput(req, r, n, 5, &inputs[r]);
      std::vector<char> out(inputs[0]);
      for (size_t i = 0; i < req.count; ++i) {
        double acc = LoadElement(dtype, inputs[0].data(), i);
        for (int r = 1; r < n; ++r) {
          double v = LoadElement(dtype, inputs[r].data(), i);
          acc = reduce == ReduceOp::kSum ? acc + v : reduce == ReduceOp::kProd ? acc * v
                : reduce == ReduceOp::kMax ? std::max(acc, v) : std::min(acc, v);
        }
        StoreElement(dtype, out.data(), i, acc);
      }
      EXPECT_TRUE(CheckOutput(req, 1, n, 5, out).ok()) << Name(dtype) << " " << Name(reduce);
    }
  }
}

TEST(PatternTest, StaleIterationIsCaught) {
  OpRequest req = Request(Collective::kAllreduce, DataType::kF32, ReduceOp::kSum, 64);
  std::vector<char> out(64 * 4);
  for (size_t i = 0; i < 64; ++i) StoreElement(DataType::kF32, out.data(), i, ExpectedValue(req, 0, 2, i, 3));
  EXPECT_TRUE(CheckOutput(req, 0, 2, 3, out).ok());
  Status stale = CheckOutput(req, 0, 2, 4, out);
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.code(), StatusCode::kDataLoss);
  EXPECT_NE(stale.message().find("iteration 4"), std::string::npos) << stale.message();
}

TEST(PatternTest, AllgatherBlockAtWrongOffsetIsCaught) {
  const int n = 4;
  OpRequest req = Request(Collective::kAllgather, DataType::kI32, ReduceOp::kSum, 10);
  std::vector<char> out(n * 10 * 4);
  for (int r = 0; r < n; ++r) {
    std::vector<char> in;
    FillInput(req, r, n, 0, &in);
    std::copy(in.begin(), in.end(), out.begin() + r * 40);
  }
  EXPECT_TRUE(CheckOutput(req, 2, n, 0, out).ok());
  std::swap_ranges(out.begin(), out.begin() + 40, out.begin() + 40);  // blocks of ranks 0 and 1 swapped
  EXPECT_FALSE(CheckOutput(req, 2, n, 0, out).ok());
}

TEST(PatternTest, ReduceScatterUsesOwnSlice) {
  const int n = 3;
  OpRequest req = Request(Collective::kReduceScatter, DataType::kF64, ReduceOp::kSum, 5);
  std::vector<char> out(5 * 8);
  for (size_t i = 0; i < 5; ++i) StoreElement(DataType::kF64, out.data(), i, ExpectedValue(req, 1, n, i, 0));
  EXPECT_TRUE(CheckOutput(req, 1, n, 0, out).ok());
  EXPECT_FALSE(CheckOutput(req, 2, n, 0, out).ok());  // rank 2's slice differs
}

TEST(PatternTest, ValuesAreExactInHalfPrecision) {
  OpRequest req = Request(Collective::kAllreduce, DataType::kBF16, ReduceOp::kSum, 1000);
  for (size_t i = 0; i < 1000; ++i) {
    double want = ExpectedValue(req, 0, 64, i, 9);
    std::vector<char> one(2);
    StoreElement(DataType::kBF16, one.data(), 0, want);
    ASSERT_EQ(LoadElement(DataType::kBF16, one.data(), 0), want);
  }
}

}  // namespace
}  // namespace commbench
