#include "lib/measure/pattern.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

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
          acc = reduce == ReduceOp::kSum    ? acc + v
                : reduce == ReduceOp::kProd ? acc * v
                : reduce == ReduceOp::kMax  ? std::max(acc, v)
                                            : std::min(acc, v);
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

// FillInput and CheckOutput run table-driven loops (no division or ldexp per element); they must agree with the
// per-element definitions everywhere, including iterations past kCodes and the 64-bit wrap of the code sums.
TEST(PatternTest, FillInputIsPatternValueElementByElement) {
  const uint64_t iters[] = {0, 1, 4095, 4096, 4097, (uint64_t{1} << 40) + 3, ~uint64_t{0}};
  int cases = 0;
  for (Collective op : {Collective::kAllreduce, Collective::kAllgather, Collective::kReduceScatter}) {
    for (ReduceOp reduce : AllReduceOps()) {
      for (DataType dtype : AllDataTypes()) {
        for (int n : {1, 2, 3, 7, 8, 9, 13, 64}) {
          for (size_t count : {size_t{1}, size_t{5}, size_t{37}, size_t{4100}}) {
            for (uint64_t iter : iters) {
              const OpRequest req = Request(op, dtype, reduce, count);
              const int rank = (n * 5) / 7;  // neither the first nor, where n > 2, the last
              std::vector<char> filled;
              FillInput(req, rank, n, iter, &filled);
              ASSERT_EQ(filled.size(), SendCount(req, n) * SizeOf(dtype));
              for (size_t i = 0; i < SendCount(req, n); ++i) {
                std::vector<char> one(SizeOf(dtype));
                StoreElement(dtype, one.data(), 0, PatternValue(req, rank, n, i, iter));
                ASSERT_TRUE(std::equal(one.begin(), one.end(), filled.begin() + i * SizeOf(dtype)))
                    << Name(op) << " " << Name(dtype) << " " << Name(reduce) << " n=" << n << " count=" << count
                    << " iter=" << iter << " index " << i;
              }
              ++cases;
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(cases, 3 * 4 * 5 * 8 * 4 * 7);
}

TEST(PatternTest, CheckOutputFlagsExactlyTheElementsThatDifferFromExpectedValue) {
  for (Collective op : {Collective::kAllreduce, Collective::kAllgather, Collective::kReduceScatter}) {
    for (DataType dtype : AllDataTypes()) {
      for (uint64_t iter : {uint64_t{2}, uint64_t{4099}, ~uint64_t{0}}) {
        const int n = 3, rank = 2;
        const OpRequest req = Request(op, dtype, ReduceOp::kSum, 11);
        const size_t recv = RecvCount(req, n);
        std::vector<char> out(recv * SizeOf(dtype));
        for (size_t i = 0; i < recv; ++i) StoreElement(dtype, out.data(), i, ExpectedValue(req, rank, n, i, iter));
        ASSERT_TRUE(CheckOutput(req, rank, n, iter, out).ok()) << Name(op) << " " << Name(dtype) << " " << iter;
        for (size_t bad = 0; bad < recv; ++bad) {
          std::vector<char> wrong = out;
          StoreElement(dtype, wrong.data(), bad, -ExpectedValue(req, rank, n, bad, iter));
          Status s = CheckOutput(req, rank, n, iter, wrong);
          ASSERT_FALSE(s.ok());
          EXPECT_NE(s.message().find("1 of " + std::to_string(recv) + " elements wrong"), std::string::npos)
              << s.message();
          EXPECT_NE(s.message().find("first at index " + std::to_string(bad) + ":"), std::string::npos) << s.message();
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Corruption enumeration: for every collective, reduction and dtype over a grid of group sizes and counts, the
// ranks' inputs are reduced here (rank by rank and as a pairwise tree, rounding to the dtype after every step,
// so the pattern must be exact in any order), the result must pass CheckOutput, and every corruption a broken
// collective could leave must fail it: another iteration's result, the untouched input, another rank's input
// or block, a shifted block, and an untouched (zeroed) receive buffer.

double Round(DataType dtype, double v) {
  char buf[8];
  StoreElement(dtype, buf, 0, v);
  return LoadElement(dtype, buf, 0);
}

double Combine(ReduceOp reduce, double a, double b) {
  switch (reduce) {
    case ReduceOp::kSum:
      return a + b;
    case ReduceOp::kProd:
      return a * b;
    case ReduceOp::kMax:
      return std::max(a, b);
    case ReduceOp::kMin:
      return std::min(a, b);
  }
  return 0;
}

// Reduces values[lo, hi) as a balanced tree, rounding every partial result.
double TreeReduce(DataType dtype, ReduceOp reduce, const std::vector<double>& values, size_t lo, size_t hi) {
  if (hi - lo == 1) return values[lo];
  size_t mid = lo + (hi - lo) / 2;
  return Round(dtype,
               Combine(reduce, TreeReduce(dtype, reduce, values, lo, mid), TreeReduce(dtype, reduce, values, mid, hi)));
}

using Values = std::vector<double>;

std::vector<char> ToBuffer(DataType dtype, const Values& v) {
  std::vector<char> out(v.size() * SizeOf(dtype));
  for (size_t i = 0; i < v.size(); ++i) StoreElement(dtype, out.data(), i, v[i]);
  return out;
}

Values FromBuffer(DataType dtype, const std::vector<char>& b) {
  Values v(b.size() / SizeOf(dtype));
  for (size_t i = 0; i < v.size(); ++i) v[i] = LoadElement(dtype, b.data(), i);
  return v;
}

// What every rank sends and what every rank should receive, computed from the inputs alone.
struct Reference {
  std::vector<Values> inputs;   // [rank][send index]
  std::vector<Values> outputs;  // [rank][recv index]; one shared entry where all ranks receive the same
  const Values& Output(int rank) const { return outputs.size() == 1 ? outputs[0] : outputs[rank]; }
};

Reference Compute(const OpRequest& req, int n, uint64_t iter) {
  Reference ref;
  ref.inputs.resize(n);
  for (int r = 0; r < n; ++r) {
    std::vector<char> in;
    FillInput(req, r, n, iter, &in);
    EXPECT_EQ(in.size(), SendCount(req, n) * SizeOf(req.dtype));
    ref.inputs[r] = FromBuffer(req.dtype, in);
  }
  const size_t c = req.count;
  if (req.op == Collective::kAllgather) {
    Values all;
    for (int r = 0; r < n; ++r) all.insert(all.end(), ref.inputs[r].begin(), ref.inputs[r].end());
    ref.outputs.push_back(all);
    return ref;
  }
  const size_t len = ref.inputs[0].size();
  Values reduced(len);
  Values column(n);
  for (size_t i = 0; i < len; ++i) {
    double seq = ref.inputs[0][i], exact = seq;
    column[0] = seq;
    for (int r = 1; r < n; ++r) {
      double v = ref.inputs[r][i];
      column[r] = v;
      seq = Round(req.dtype, Combine(req.reduce, seq, v));
      exact = Combine(req.reduce, exact, v);
    }
    EXPECT_EQ(seq, exact) << "inexact in rank order at " << i;
    if (n <= 64) {
      EXPECT_EQ(TreeReduce(req.dtype, req.reduce, column, 0, n), exact) << "inexact as a tree at " << i;
    }
    reduced[i] = exact;
  }
  if (req.op == Collective::kAllreduce) {
    ref.outputs.push_back(reduced);
  } else {
    ref.outputs.resize(n);
    for (int r = 0; r < n; ++r) ref.outputs[r].assign(reduced.begin() + r * c, reduced.begin() + (r + 1) * c);
  }
  return ref;
}

Values Rotate(const Values& v, size_t s) {
  Values out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = v[(i + s) % v.size()];
  return out;
}

struct Tally {
  int64_t detected = 0;
  int64_t inherent = 0;  // corruptions equal to the correct output where no pattern can help (listed below)
};

// A corrupted receive buffer must fail the check, unless `inherent` says it cannot differ from the result.
void ExpectCaught(const OpRequest& req, int rank, int n, uint64_t iter, const Values& correct, const Values& bad,
                  bool inherent, const std::string& what, Tally* tally) {
  Values sized = bad;
  sized.resize(correct.size(), 0.0);
  if (inherent && sized == correct) {
    ++tally->inherent;
    return;
  }
  Status st = CheckOutput(req, rank, n, iter, ToBuffer(req.dtype, sized));
  EXPECT_FALSE(st.ok()) << what << " not caught: " << Name(req.op) << " " << Name(req.reduce) << " " << Name(req.dtype)
                        << " n=" << n << " count=" << req.count << " rank=" << rank << " iter=" << iter;
  if (!st.ok()) {
    EXPECT_EQ(st.code(), StatusCode::kDataLoss);
    ++tally->detected;
  }
}

std::vector<int> CheckedRanks(int n) {
  if (n <= 18) {
    std::vector<int> all(n);
    for (int r = 0; r < n; ++r) all[r] = r;
    return all;
  }
  return {0, 1, n / 2, n - 1};
}

void EnumerateCorruptions(const OpRequest& req, int n, Tally* tally) {
  const uint64_t iters[] = {1, 2, 3};  // loop.cc's first, middle and last iterations
  std::vector<Reference> refs;
  for (uint64_t t : iters) refs.push_back(Compute(req, n, t));
  const size_t c = req.count;
  const bool single = n == 1;  // one rank: the input is the result, another rank and a shift do not exist
  const bool picks =
      req.op != Collective::kAllgather && (req.reduce == ReduceOp::kMax || req.reduce == ReduceOp::kMin) && c == 1;
  for (size_t ti = 0; ti < 3; ++ti) {
    const uint64_t t = iters[ti];
    const Reference& ref = refs[ti];
    // Distinct blocks: every rank's reduce-scatter slice, every rank's allgather block.
    if (req.op != Collective::kAllreduce) {
      std::set<Values> blocks;
      for (int r = 0; r < n; ++r) {
        blocks.insert(req.op == Collective::kAllgather ? ref.inputs[r] : ref.Output(r));
      }
      EXPECT_EQ(blocks.size(), static_cast<size_t>(n))
          << Name(req.op) << " blocks of two ranks are equal, n=" << n << " count=" << c << " " << Name(req.dtype);
    }
    for (int k : CheckedRanks(n)) {
      const Values& want = ref.Output(k);
      ASSERT_TRUE(CheckOutput(req, k, n, t, ToBuffer(req.dtype, want)).ok())
          << "correct result rejected: " << Name(req.op) << " " << Name(req.reduce) << " " << Name(req.dtype)
          << " n=" << n << " count=" << c << " rank=" << k;
      for (size_t other = 0; other < 3; ++other) {
        if (other == ti) continue;
        ExpectCaught(req, k, n, t, want, refs[other].Output(k), false, "stale result", tally);
        ExpectCaught(req, k, n, t, want, refs[other].inputs[k], single && req.op != Collective::kReduceScatter,
                     "stale input", tally);
      }
      ExpectCaught(req, k, n, t, want, Values(want.size(), 0.0), false, "untouched (zeroed) output", tally);
      // The untouched input: at the start of the buffer, and (allgather, reduce-scatter) at the rank's own block.
      ExpectCaught(req, k, n, t, want, ref.inputs[k], single || picks, "untouched input", tally);
      if (req.op == Collective::kAllgather) {
        Values own(want.size(), 0.0);
        std::copy(ref.inputs[k].begin(), ref.inputs[k].end(), own.begin() + k * c);
        ExpectCaught(req, k, n, t, want, own, single, "only own block", tally);
      }
      if (req.op == Collective::kReduceScatter) {
        Values own(ref.inputs[k].begin() + k * c, ref.inputs[k].begin() + (k + 1) * c);
        ExpectCaught(req, k, n, t, want, own, single || picks, "own unreduced slice", tally);
      }
      // Blocks from the wrong rank.
      std::vector<int> others = CheckedRanks(n);
      for (int j : others) {
        if (j == k) continue;
        if (req.op == Collective::kAllreduce) {
          ExpectCaught(req, k, n, t, want, ref.inputs[j], picks, "another rank's input", tally);
        } else if (req.op == Collective::kReduceScatter) {
          ExpectCaught(req, k, n, t, want, ref.Output(j), false, "another rank's slice", tally);
          Values unreduced(ref.inputs[j].begin() + k * c, ref.inputs[j].begin() + (k + 1) * c);
          ExpectCaught(req, k, n, t, want, unreduced, picks, "another rank's unreduced slice", tally);
        } else {
          Values swapped = want;  // block k holds rank j's input
          std::copy(ref.inputs[j].begin(), ref.inputs[j].end(), swapped.begin() + k * c);
          ExpectCaught(req, k, n, t, want, swapped, false, "another rank's block", tally);
        }
      }
      // Shifted blocks: the whole receive buffer one element either way; reduce-scatter: the slice read one
      // element off within the reduced vector.
      for (size_t s : {size_t{1}, want.size() - 1}) {
        bool identity = want.size() == 1;
        ExpectCaught(req, k, n, t, want, Rotate(want, s), identity, "buffer shifted", tally);
      }
      if (req.op == Collective::kReduceScatter) {
        Values reduced;
        for (int r = 0; r < n; ++r) reduced.insert(reduced.end(), ref.Output(r).begin(), ref.Output(r).end());
        for (size_t s : {size_t{1}, reduced.size() - 1}) {
          Values shifted(c);
          for (size_t i = 0; i < c; ++i) shifted[i] = reduced[(k * c + i + s) % reduced.size()];
          ExpectCaught(req, k, n, t, want, shifted, reduced.size() == 1, "slice shifted", tally);
        }
      }
    }
  }
}

TEST(PatternTest, EveryCorruptionIsCaught) {
  const int groups[] = {1, 2, 3, 8, 9, 16, 18, 64, 4096};
  const size_t counts[] = {1, 7, 9, 64};
  Tally tally;
  int points = 0;
  for (Collective op : {Collective::kAllreduce, Collective::kAllgather, Collective::kReduceScatter}) {
    for (ReduceOp reduce : AllReduceOps()) {
      if (op == Collective::kAllgather && reduce != ReduceOp::kSum) continue;  // allgather does not reduce
      for (DataType dtype : AllDataTypes()) {
        for (int n : groups) {
          for (size_t count : counts) {
            // 4096 ranks: reduce-scatter (n * n * count inputs) at one element per rank, sum and prod in bf16 (the
            // tightest dtype; max/min share their codes), the others at <= 9 elements; rounding is checked in rank
            // order, and as a tree up to 64 ranks.
            if (n == 4096 && (op == Collective::kReduceScatter ? count > 1 : count > 9)) continue;
            if (n == 4096 && op == Collective::kReduceScatter &&
                (dtype != DataType::kBF16 || reduce == ReduceOp::kMax || reduce == ReduceOp::kMin)) {
              continue;
            }
            EnumerateCorruptions(Request(op, dtype, reduce, count), n, &tally);
            ++points;
            if (HasFailure()) return;
          }
        }
      }
    }
  }
  std::printf("%d points, %lld corruptions caught, %lld inherently equal to the result\n", points,
              static_cast<long long>(tally.detected), static_cast<long long>(tally.inherent));
}

}  // namespace
}  // namespace commbench
