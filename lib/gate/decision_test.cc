#include "lib/gate/decision.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace commbench::gate {
namespace {

TEST(MannWhitneyTest, ExactWithoutTies) {
  RankTest t = MannWhitney({1, 2, 3}, {4, 5, 6});
  EXPECT_TRUE(t.exact);
  EXPECT_DOUBLE_EQ(t.u, 9);
  EXPECT_NEAR(t.p, 2.0 / 20,
              1e-12);  // the two most extreme of C(6,3) = 20 arrangements
  t = MannWhitney({1, 3, 5}, {2, 4, 6});
  EXPECT_DOUBLE_EQ(t.u, 6);
  EXPECT_NEAR(t.p, 0.7, 1e-12);  // |U - 4.5| >= 1.5: 14 of 20 arrangements
  EXPECT_NEAR(SmallestAttainableP(5, 5), 2.0 / 252, 1e-12);
  EXPECT_NEAR(SmallestAttainableP(3, 3), 0.1, 1e-12);
}

TEST(MannWhitneyTest, TiesUseTheNormalApproximation) {
  RankTest t = MannWhitney({1, 1, 2, 2, 3}, {2, 3, 3, 4, 4});
  EXPECT_FALSE(t.exact);
  EXPECT_DOUBLE_EQ(t.u, 22);
  EXPECT_GT(t.p, 0.01);
  EXPECT_LT(t.p, 0.2);
  EXPECT_DOUBLE_EQ(MannWhitney({5, 5, 5}, {5, 5, 5}).p, 1);
}

std::vector<double> Repeats(double median, double rel_noise, int n, std::mt19937_64 *rng) {
  std::normal_distribution<double> noise(0, rel_noise);
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(median * std::exp(noise(*rng)));
  return v;
}

TEST(DecideTest, ClearCases) {
  std::mt19937_64 rng(7);
  Decision slower = Decide(Repeats(100, 0.01, 6, &rng), Repeats(110, 0.01, 6, &rng));
  EXPECT_EQ(slower.change, Change::kSlower) << slower.reason;
  EXPECT_GT(slower.ratio_lo, 1);
  Decision faster = Decide(Repeats(100, 0.01, 6, &rng), Repeats(88, 0.01, 6, &rng));
  EXPECT_EQ(faster.change, Change::kFaster) << faster.reason;
  Decision same = Decide(Repeats(100, 0.01, 8, &rng), Repeats(100, 0.01, 8, &rng));
  EXPECT_EQ(same.change, Change::kUnchanged) << same.reason;
  EXPECT_LE(same.detectable, 0.05);
}

TEST(DecideTest, TooFewRepeatsIsInconclusiveNeverUnchanged) {
  Decision d = Decide({100, 100.1, 99.9}, {100, 100.2, 99.8});
  EXPECT_EQ(d.change, Change::kInconclusive);
  EXPECT_TRUE(std::isinf(d.detectable));
  EXPECT_NE(d.reason.find("cannot reach"), std::string::npos) << d.reason;
  EXPECT_EQ(Decide({}, {1, 2, 3}).change, Change::kInconclusive);
}

// Launch-to-launch noise of 20 % hides a 5 % change: say so instead of
// "unchanged".
TEST(DecideTest, NoiseAboveTheFloorIsInconclusive) {
  std::mt19937_64 rng(3);
  Decision d = Decide(Repeats(100, 0.2, 6, &rng), Repeats(105, 0.2, 6, &rng));
  EXPECT_EQ(d.change, Change::kInconclusive) << d.reason;
  EXPECT_GT(d.detectable, 0.05);
  EXPECT_NE(d.reason.find("noise above the floor"), std::string::npos) << d.reason;
}

// A real but small change (1 %) with little noise: significant, yet below what
// anyone asked to be told about.
TEST(DecideTest, SignificantButBelowTheFloorIsUnchanged) {
  std::mt19937_64 rng(11);
  Decision d = Decide(Repeats(100, 0.002, 8, &rng), Repeats(101, 0.002, 8, &rng));
  EXPECT_LT(d.test.p, 0.01);
  EXPECT_EQ(d.change, Change::kUnchanged) << d.reason;
}

// Over many A/A comparisons at 3 % launch noise, 6 repeats a side: false alarms
// stay rare; a 10 % slowdown is found nearly always. Deterministic (fixed
// seeds).
TEST(DecideTest, FalseAlarmsAndPowerOnSimulatedRepeats) {
  std::mt19937_64 rng(2026);
  int false_alarms = 0, detected = 0;
  const int trials = 300;
  for (int t = 0; t < trials; ++t) {
    DecisionOptions o;
    o.seed = static_cast<uint64_t>(t);
    if (Decide(Repeats(100, 0.03, 6, &rng), Repeats(100, 0.03, 6, &rng), o).change == Change::kSlower) ++false_alarms;
    if (Decide(Repeats(100, 0.03, 6, &rng), Repeats(110, 0.03, 6, &rng), o).change == Change::kSlower) ++detected;
  }
  EXPECT_LE(false_alarms, 3) << "of " << trials;
  EXPECT_GE(detected, trials * 9 / 10) << "of " << trials;
}

}  // namespace
}  // namespace commbench::gate
