#include <cmath>

#include <gtest/gtest.h>

#include "lib/stats/bandwidth.h"
#include "lib/stats/fit.h"
#include "lib/stats/summary.h"

namespace commbench {
namespace {

TEST(SummaryTest, KnownData) {
  // 1..100: numpy gives p50 50.5, p95 95.05, p99 99.01, sample stddev 29.011491975882016.
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);
  Summary s = Summarize(v);
  EXPECT_EQ(s.n, 100u);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 100);
  EXPECT_DOUBLE_EQ(s.p50, 50.5);
  EXPECT_NEAR(s.p95, 95.05, 1e-9);
  EXPECT_NEAR(s.p99, 99.01, 1e-9);
  EXPECT_DOUBLE_EQ(s.mean, 50.5);
  EXPECT_NEAR(s.stddev, 29.011491975882016, 1e-9);
  EXPECT_NEAR(s.cv, 29.011491975882016 / 50.5, 1e-12);
  EXPECT_LE(s.ci95_lo, s.p50);
  EXPECT_GE(s.ci95_hi, s.p50);
  EXPECT_GT(s.ci95_hi - s.ci95_lo, 5);   // a wide distribution has a wide CI ...
  EXPECT_LT(s.ci95_hi - s.ci95_lo, 40);  // ... but far narrower than its range
}

TEST(SummaryTest, ConstantAndSingle) {
  Summary s = Summarize({7, 7, 7, 7});
  EXPECT_EQ(s.stddev, 0);
  EXPECT_EQ(s.cv, 0);
  EXPECT_EQ(s.ci95_lo, 7);
  EXPECT_EQ(s.ci95_hi, 7);
  Summary one = Summarize({3});
  EXPECT_EQ(one.p99, 3);
  EXPECT_EQ(Summarize({}).n, 0u);
}

TEST(SummaryTest, ElementwiseAcrossRanks) {
  std::vector<std::vector<double>> ranks = {{1, 5, 3}, {4, 2, 6}};
  EXPECT_EQ(ElementwiseMax(ranks), (std::vector<double>{4, 5, 6}));
  EXPECT_EQ(ElementwiseMean(ranks), (std::vector<double>{2.5, 3.5, 4.5}));
}

TEST(BandwidthTest, FactorsMatchNcclTests) {
  EXPECT_DOUBLE_EQ(BusBwFactor(Collective::kAllreduce, 2), 1.0);
  EXPECT_DOUBLE_EQ(BusBwFactor(Collective::kAllreduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(BusBwFactor(Collective::kAllgather, 4), 0.75);
  EXPECT_DOUBLE_EQ(BusBwFactor(Collective::kReduceScatter, 3), 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(BusBwFactor(Collective::kAllreduce, 1), 1.0);
  // 1 MiB allreduce over 4 ranks in 100 us: algbw = 1048576 B / 1e-4 s = 10.48576 GB/s; busbw x 1.5.
  Bandwidth b = ComputeBandwidth(Collective::kAllreduce, 1 << 20, 4, 100);
  EXPECT_NEAR(b.algbw_gbps, 10.48576, 1e-9);
  EXPECT_NEAR(b.busbw_gbps, 15.72864, 1e-9);
  EXPECT_EQ(ComputeBandwidth(Collective::kAllgather, 100, 2, 0).algbw_gbps, 0);
}

TEST(FitTest, LineAndNoise) {
  LinearFit f = FitLine({1, 2, 3, 4}, {3, 5, 7, 9});
  EXPECT_DOUBLE_EQ(f.slope, 2);
  EXPECT_DOUBLE_EQ(f.intercept, 1);
  EXPECT_DOUBLE_EQ(f.r2, 1);
  LinearFit flat = FitLine({1, 2, 3}, {5, 5, 5});
  EXPECT_EQ(flat.slope, 0);
  EXPECT_EQ(flat.r2, 1);
  LinearFit one = FitLine({2}, {4});
  EXPECT_EQ(one.slope, 0);
  EXPECT_EQ(one.intercept, 4);
  // y = x^2 on 1..4: Sxx = 5, Sxy = 25, Syy = 129, so slope 5, intercept -5, R^2 = 625 / 645.
  LinearFit q = FitLine({1, 2, 3, 4}, {1, 4, 9, 16});
  EXPECT_NEAR(q.slope, 5, 1e-12);
  EXPECT_NEAR(q.intercept, -5, 1e-12);
  EXPECT_NEAR(q.r2, 625.0 / 645.0, 1e-12);
}

}  // namespace
}  // namespace commbench
