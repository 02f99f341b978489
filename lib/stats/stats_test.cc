#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

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
  EXPECT_NEAR(StandardErrorOfMean(s), 29.011491975882016 / 10, 1e-12);
}

TEST(SummaryTest, ConstantAndSingle) {
  Summary s = Summarize({7, 7, 7, 7});
  EXPECT_EQ(s.stddev, 0);
  EXPECT_EQ(s.cv, 0);
  EXPECT_EQ(s.ci95_lo, 7);
  EXPECT_EQ(StandardErrorOfMean(Summarize({7})), 0);
  EXPECT_EQ(s.ci95_hi, 7);
  Summary one = Summarize({3});
  EXPECT_EQ(one.p99, 3);
  EXPECT_EQ(Summarize({}).n, 0u);
}

// One median for the whole tree: the middle value, the mean of the middle two, and for no values NaN, or the
// caller's figure (MedianOr).
TEST(SummaryTest, MedianAndMedianOr) {
  EXPECT_DOUBLE_EQ(Median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(Median({4, 1, 3, 2}), 2.5);
  EXPECT_TRUE(std::isnan(Median({})));
  EXPECT_DOUBLE_EQ(MedianOr({}, 0), 0);
  EXPECT_DOUBLE_EQ(MedianOr({5, 7}, 0), 6);
}

TEST(SummaryTest, MedianIntervalIsOrderStatistics) {
  // n = 100: P(B <= 39) = 0.0176 <= 0.025 < P(B <= 40) = 0.0284, so [x_(40), x_(61)].
  std::vector<double> v;
  for (int i = 1; i <= 100; ++i) v.push_back(i);
  double lo = 0, hi = 0;
  MedianCISorted(v, &lo, &hi);
  EXPECT_EQ(lo, 40);
  EXPECT_EQ(hi, 61);
  MedianCISorted({1, 2, 3, 4, 5}, &lo, &hi);  // n < 6: no narrower interval reaches 95%
  EXPECT_EQ(lo, 1);
  EXPECT_EQ(hi, 5);
}

TEST(SummaryTest, ElementwiseAcrossRanks) {
  std::vector<std::vector<double>> ranks = {{1, 5, 3}, {4, 2, 6}};
  EXPECT_EQ(ElementwiseMax(ranks), (std::vector<double>{4, 5, 6}));
  EXPECT_EQ(ElementwiseMean(ranks), (std::vector<double>{2.5, 3.5, 4.5}));
}

// Coverage of the 95% CI of the median on synthetic data with a known median. The data come from
// std::mt19937_64 (its output is fixed by the standard) turned into variates by hand (the std distributions
// differ between standard libraries), so every platform sees the same trials. The order-statistic interval
// (MedianCISorted) covers 0.95-0.96 of the time for continuous data (1 - 2 P(B <= j-1), exactly; at n = 20 it
// is 0.959), so with 200 trials a correct interval covers 190-192 +- 3 (1 sd) times and [0.88, 0.99] is at
// least 3 sd from either end, while one too wide by sqrt(n/2000) (the old m-out-of-n bootstrap bug) covers
// every time at n = 20000. n = 20 and 200 take the exact binomial bound, 1500 and above the normal one.
double UniformOpen(std::mt19937_64* rng) {  // in (0, 1)
  return (static_cast<double>((*rng)() >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

double StandardNormal(std::mt19937_64* rng) {  // Box-Muller, one of the pair
  return std::sqrt(-2 * std::log(UniformOpen(rng))) * std::cos(6.283185307179586 * UniformOpen(rng));
}

double Normal10And2(std::mt19937_64* rng) { return 10 + 2 * StandardNormal(rng); }
double LogNormal01(std::mt19937_64* rng) { return std::exp(StandardNormal(rng)); }

struct CoverageCase {
  const char* name;
  double true_median;
  double (*draw)(std::mt19937_64*);
  size_t n;
};

TEST(SummaryTest, MedianCICoversTheTrueMedian) {
  // The skewed case skips n = 5000 to keep the run time at about a second.
  const CoverageCase cases[] = {
      {"normal(10, 2)", 10.0, Normal10And2, 20},   {"lognormal(0, 1)", 1.0, LogNormal01, 20},
      {"normal(10, 2)", 10.0, Normal10And2, 1500}, {"normal(10, 2)", 10.0, Normal10And2, 200},
      {"normal(10, 2)", 10.0, Normal10And2, 5000}, {"normal(10, 2)", 10.0, Normal10And2, 20000},
      {"lognormal(0, 1)", 1.0, LogNormal01, 200},  {"lognormal(0, 1)", 1.0, LogNormal01, 20000},
  };
  const int kTrials = 200;
  std::mt19937_64 rng(20261123);
  for (const CoverageCase& c : cases) {
    int covered = 0;
    std::vector<double> v(c.n);
    for (int t = 0; t < kTrials; ++t) {
      for (double& x : v) x = c.draw(&rng);
      Summary s = Summarize(v);
      covered += s.ci95_lo <= c.true_median && c.true_median <= s.ci95_hi;
    }
    double coverage = static_cast<double>(covered) / kTrials;
    EXPECT_GE(coverage, 0.88) << c.name << " n=" << c.n;
    EXPECT_LE(coverage, 0.99) << c.name << " n=" << c.n;
    std::printf("coverage %-16s n=%-6zu %.3f\n", c.name, c.n, coverage);
  }
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
