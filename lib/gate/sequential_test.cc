// The stopping rule: its boundaries against published ones, and its error rate by simulation: 10,000 A/A series
// with the launch-to-launch spread measured on the 2-core runner (coefficient of variation 0.12), looked at as the
// CI preset looks (every 10 repeats a side), must reach a boundary at most alpha of the time, while the same looks
// at a fixed p < alpha would not hold it. Deterministic seed.
#include "lib/gate/sequential.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "lib/gate/decision.h"

namespace commbench::gate {
namespace {

TEST(SpendingTest, OneLookIsTheFixedSampleTest) {
  std::vector<Boundary> b = SpendingBoundaries(0.01, {1.0});
  ASSERT_EQ(b.size(), 1u);
  EXPECT_NEAR(b[0].z, 2.5758, 1e-3);
  EXPECT_NEAR(b[0].p, 0.01, 1e-6);
  EXPECT_NEAR(SpentAlpha(0.01, 1), 0.01, 1e-12);
  EXPECT_NEAR(SpentAlpha(0.01, 0), 0, 1e-12);
  EXPECT_LT(SpentAlpha(0.01, 0.25), 1e-5);  // O'Brien-Fleming: almost nothing spent early
}

TEST(SpendingTest, BoundariesSpendWhatTheyShouldOnBrownianPaths) {
  // An independent check of the numerical integration: a Brownian motion observed at five equally spaced looks
  // crosses the boundaries, up to each look, with the probability spent so far (200,000 paths, fixed seed; 3
  // standard errors).
  const double alpha = 0.05;
  const std::vector<double> t = {0.2, 0.4, 0.6, 0.8, 1.0};
  const std::vector<Boundary> b = SpendingBoundaries(alpha, t);
  std::mt19937_64 rng(5);
  std::normal_distribution<double> step(0, 1);
  const int paths = 200000;
  std::vector<int> crossed_by(t.size(), 0);
  for (int i = 0; i < paths; ++i) {
    double s = 0, last = 0;
    for (size_t k = 0; k < t.size(); ++k) {
      s += std::sqrt(t[k] - last) * step(rng);
      last = t[k];
      if (std::fabs(s) / std::sqrt(t[k]) >= b[k].z) {
        for (size_t j = k; j < t.size(); ++j) ++crossed_by[j];
        break;
      }
    }
  }
  for (size_t k = 0; k < t.size(); ++k) {
    const double expected = SpentAlpha(alpha, t[k]);
    EXPECT_NEAR(b[k].spent, expected, 1e-4) << "look " << k + 1;
    const double se = std::sqrt(expected * (1 - expected) / paths);
    EXPECT_NEAR(static_cast<double>(crossed_by[k]) / paths, expected, 3 * se + 1e-5) << "look " << k + 1;
  }
  // The boundaries fall from strict to a little above the fixed-sample test's 1.96.
  EXPECT_GT(b[0].z, 4);
  EXPECT_GT(b.back().z, 1.96);
  EXPECT_LT(b.back().z, 2.1);
}

TEST(SpendingTest, ALookThatAddsNothingCannotStop) {
  std::vector<Boundary> b = SpendingBoundaries(0.01, {0.5, 0.5, 1.0});
  EXPECT_TRUE(std::isinf(b[1].z));
  EXPECT_EQ(b[1].p, 0);
  EXPECT_TRUE(std::isfinite(b[2].z));
  Boundary last = LastLookBoundary(0.01, {{40, 10}, {40, 20}}, {40, 40});
  EXPECT_GT(last.z, 2.5758);  // not the last look of the plan: stricter than the fixed-sample test
  EXPECT_TRUE(std::isinf(LastLookBoundary(0.01, {}, {40, 40}).z));
}

// Simulated A/A series: both sides log-normal with the same median and spread; each look's rank test on the
// repeats so far. Returns the share of series where some look's p reached its boundary, and the share where some
// look's p was below a fixed alpha (the naive rule).
struct Rates {
  double spending = 0, naive = 0;
};

Rates SimulateAA(int series, double cv, int first, int every, int planned, int fixed_base, double alpha) {
  std::vector<Look> looks;
  for (int n = first; n <= planned; n += every) looks.push_back({fixed_base > 0 ? fixed_base : n, n});
  std::vector<double> p_boundary;
  for (size_t k = 0; k < looks.size(); ++k) {
    p_boundary.push_back(LastLookBoundary(alpha, std::vector<Look>(looks.begin(), looks.begin() + k + 1),
                                          {fixed_base > 0 ? fixed_base : planned, planned})
                             .p);
  }
  std::mt19937_64 rng(20261126);
  std::normal_distribution<double> noise(0, cv);
  int spending = 0, naive = 0;
  std::vector<double> base, now;
  for (int s = 0; s < series; ++s) {
    base.clear();
    now.clear();
    if (fixed_base > 0) {
      for (int i = 0; i < fixed_base; ++i) base.push_back(100 * std::exp(noise(rng)));
    }
    bool stopped = false, naive_stopped = false;
    for (size_t k = 0; k < looks.size(); ++k) {
      while (static_cast<int>(now.size()) < looks[k].now) {
        if (fixed_base == 0) base.push_back(100 * std::exp(noise(rng)));
        now.push_back(100 * std::exp(noise(rng)));
      }
      const double p = MannWhitney(base, now).p;
      stopped = stopped || p < p_boundary[k];
      naive_stopped = naive_stopped || p < alpha;
    }
    spending += stopped;
    naive += naive_stopped;
  }
  return {static_cast<double>(spending) / series, static_cast<double>(naive) / series};
}

TEST(SpendingSimulationTest, AbFalseAlarmsAtMostNominalAtEveryLook) {
  // gate --ab: both sides grow, a look every 10 repeats a side up to 100.
  const Rates r = SimulateAA(10000, 0.12, 10, 10, 100, 0, 0.01);
  EXPECT_LE(r.spending, 0.01) << "alpha spending, 10 looks";
  EXPECT_GT(r.naive, 0.015) << "the naive rule is expected to inflate the error (the rule matters)";
  std::printf("A/A --ab, 10000 series, cv 0.12, 10 looks: spending %.4f, naive p < 0.01 at every look %.4f\n",
              r.spending, r.naive);
}

TEST(SpendingSimulationTest, BaselineFalseAlarmsAtMostNominalAtEveryLook) {
  // gate --baseline: a stored side of 100 repeats, the new side grows by 10 up to 100; spread 0.15 (1 MiB).
  const Rates r = SimulateAA(10000, 0.15, 10, 10, 100, 100, 0.01);
  EXPECT_LE(r.spending, 0.01);
  std::printf("A/A --baseline, 10000 series, cv 0.15, 10 looks: spending %.4f, naive %.4f\n", r.spending, r.naive);
}

}  // namespace
}  // namespace commbench::gate
