#include "lib/stats/scaling.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

namespace commbench {
namespace {

const std::vector<double> kGroups = {1, 2, 3, 4, 5, 6, 7, 8};

// y(G) plus Gaussian noise of `rel_noise` of the value; the stated standard error is that noise.
void Make(const std::function<double(double)>& f, double rel_noise, uint32_t seed, std::vector<double>* y,
          std::vector<double>* se) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> n01(0, 1);
  y->clear();
  se->clear();
  for (double g : kGroups) {
    double v = f(g);
    y->push_back(v + rel_noise * v * n01(rng));
    se->push_back(rel_noise * v);
  }
}

TEST(ScalingTest, FlatWithNoiseIsFlatForManySeeds) {
  for (uint32_t seed = 1; seed <= 50; ++seed) {
    std::vector<double> y, se;
    Make([](double) { return 100.0; }, 0.03, seed, &y, &se);
    ScalingFit f = FitScaling(kGroups, y, se);
    EXPECT_EQ(f.model, GrowthModel::kFlat) << "seed " << seed << " chose " << GrowthModelName(f.model);
    EXPECT_FALSE(f.grows) << "seed " << seed;
  }
}

TEST(ScalingTest, UnderstatedNoiseDoesNotReadAsGrowth) {
  // Samples claim 0.1% noise, points scatter by 4%: the scale factor must absorb it.
  for (uint32_t seed = 1; seed <= 30; ++seed) {
    std::vector<double> y, se;
    Make([](double) { return 100.0; }, 0.04, seed, &y, &se);
    for (double& s : se) s = 0.1;
    ScalingFit f = FitScaling(kGroups, y, se, {});
    EXPECT_FALSE(f.grows) << "seed " << seed << " model " << GrowthModelName(f.model);
  }
}

// `sweep --backends native --groups 1..2 --sizes 4K` once read as growth: 0.6 -> 0.7 us, many sigmas on a quiet
// host, and below anything a user's loop would notice.
TEST(ScalingTest, GrowthBelowTheAbsoluteFloorIsNoGrowth) {
  ScalingFit tiny = FitScaling({1, 2}, {0.6, 0.7}, {0.001, 0.001});
  EXPECT_FALSE(tiny.grows);
  EXPECT_EQ(tiny.model, GrowthModel::kFlat);
  // The same shape a hundred times larger is growth.
  EXPECT_TRUE(FitScaling({1, 2}, {60, 70}, {0.1, 0.1}).grows);
}

TEST(ScalingTest, LinearIsLinear) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    std::vector<double> y, se;
    Make([](double g) { return 40 + 12 * g; }, 0.02, seed, &y, &se);
    ScalingFit f = FitScaling(kGroups, y, se);
    EXPECT_EQ(f.model, GrowthModel::kLinear) << "seed " << seed << " chose " << GrowthModelName(f.model);
    EXPECT_TRUE(f.grows);
    EXPECT_NEAR(f.line.slope, 12, 1.5);
    EXPECT_NEAR(f.line.intercept, 40, 8);
    EXPECT_GT(f.line.r2, 0.95);
  }
}

TEST(ScalingTest, StepAtThree) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    std::vector<double> y, se;
    Make([](double g) { return g < 3 ? 100.0 : 180.0; }, 0.02, seed, &y, &se);
    ScalingFit f = FitScaling(kGroups, y, se);
    EXPECT_EQ(f.model, GrowthModel::kStep) << "seed " << seed << " chose " << GrowthModelName(f.model);
    EXPECT_EQ(f.change_point, 3) << "seed " << seed;
    EXPECT_NEAR(f.level_before, 100, 5);
    EXPECT_NEAR(f.level_after, 180, 5);
    EXPECT_TRUE(f.grows);
  }
}

TEST(ScalingTest, SaturatingIsSaturation) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    std::vector<double> y, se;
    Make([](double g) { return 50 + 25 * std::min(g, 5.0); }, 0.02, seed, &y, &se);
    ScalingFit f = FitScaling(kGroups, y, se);
    EXPECT_EQ(f.model, GrowthModel::kSaturation) << "seed " << seed << " chose " << GrowthModelName(f.model);
    EXPECT_NEAR(f.change_point, 5, 1) << "seed " << seed;
    EXPECT_NEAR(f.level_after, 175, 10);
  }
}

// Series measured on a loaded 2-core VM (commbench sweep, Gloo pairs, 400 B): heavy-tailed, multiplicative noise.
TEST(ScalingTest, RealStepWithWildUpperLevel) {
  // One rank slowed by 300 us per iteration (test-only fault): everything from G=3 on includes its group.
  ScalingFit f = FitScaling({1, 2, 3, 4, 5, 6}, {30.2, 30.4, 3179.8, 399.6, 15974.5, 1851.7},
                            {0.0, 0.0, 1212.3, 157.6, 2658.3, 596.8});
  EXPECT_TRUE(f.grows);
  EXPECT_EQ(f.model, GrowthModel::kStep) << GrowthModelName(f.model);
  EXPECT_EQ(f.change_point, 3);
}

TEST(ScalingTest, RealNoisyGrowthIsGrowth) {
  // Scenario A defaults, 400 B: 12x over G=1..8 with a wild last point (CI 154..1931 us).
  ScalingFit f = FitScaling(kGroups, {31.5, 83.8, 85.1, 179.1, 384.1, 258.8, 234.7, 390.6},
                            {0.4, 0.1, 0.1, 31.7, 30.8, 10.2, 4.5, 453.2});
  EXPECT_TRUE(f.grows);
  EXPECT_NE(f.model, GrowthModel::kFlat);
}

TEST(ScalingTest, SmoothSaturationIsNotALine) {
  std::vector<double> y, se;
  Make([](double g) { return 100 + 300 * (1 - std::exp(-g / 1.5)); }, 0.01, 7, &y, &se);
  ScalingFit f = FitScaling(kGroups, y, se);
  EXPECT_EQ(f.model, GrowthModel::kSaturation) << GrowthModelName(f.model);
}

TEST(ScalingTest, SmallGrowthBelowMinimumFractionIsFlat) {
  // 5% over the whole range with a tiny stated noise: significant, but below the 10% minimum effect.
  std::vector<double> y, se;
  for (double g : kGroups) {
    y.push_back(100 + 5 * (g - 1) / 7);
    se.push_back(0.01);
  }
  ScalingOptions opt;
  opt.relative_noise_floor = 0;
  ScalingFit f = FitScaling(kGroups, y, se, opt);
  EXPECT_EQ(f.model, GrowthModel::kFlat);
  EXPECT_FALSE(f.grows);
  opt.min_growth_fraction = 0.01;
  EXPECT_TRUE(FitScaling(kGroups, y, se, opt).grows);
}

TEST(ScalingTest, DecreaseIsNotGrowth) {
  std::vector<double> y, se;
  Make([](double g) { return 200 - 15 * g; }, 0.01, 3, &y, &se);
  ScalingFit f = FitScaling(kGroups, y, se);
  EXPECT_NE(f.model, GrowthModel::kFlat);
  EXPECT_FALSE(f.grows);
  EXPECT_LT(f.growth, 0);
}

TEST(ScalingTest, FewPoints) {
  ScalingFit two = FitScaling({1, 2}, {100, 300}, {1, 1});
  EXPECT_TRUE(two.grows);
  EXPECT_EQ(two.model, GrowthModel::kLinear);
  ScalingFit one = FitScaling({1}, {100}, {1});
  EXPECT_FALSE(one.grows);
  EXPECT_EQ(one.model, GrowthModel::kFlat);
  EXPECT_FALSE(FitScaling({}, {}, {}).grows);
}

TEST(ScalingTest, StandardErrorFromCI) {
  EXPECT_DOUBLE_EQ(StandardErrorFromCI95(10, 13.92), 1.0);
  EXPECT_EQ(StandardErrorFromCI95(5, 5), 0);
}

TEST(ScalingTest, SlopeScalesWithBytesOnlyAtLargeSizes) {
  // 5 us per group of overhead plus 1 us per 10 kB per group (10 GB/s): small sizes overhead, large bandwidth.
  std::vector<SizeSlope> s;
  for (int64_t b : {400LL, 4000LL, 40000LL, 400000LL, 4000000LL}) s.push_back({b, 5 + b / 1e4});
  SlopeBytesFit f = ClassifySlopeBySize(s);
  ASSERT_EQ(f.sizes.size(), 5u);
  EXPECT_FALSE(f.sizes[0].bandwidth_bound);
  EXPECT_FALSE(f.sizes[1].bandwidth_bound);
  EXPECT_TRUE(f.sizes[3].bandwidth_bound);
  EXPECT_TRUE(f.sizes[4].bandwidth_bound);
  EXPECT_TRUE(f.any_bandwidth_bound);
  EXPECT_NEAR(f.implied_gbps, 10, 0.5);
}

TEST(ScalingTest, SlopeIndependentOfBytesIsOverhead) {
  SlopeBytesFit f = ClassifySlopeBySize({{400, 30}, {40000, 31}, {4000000, 30.5}});
  EXPECT_FALSE(f.any_bandwidth_bound);
  for (const auto& p : f.sizes) EXPECT_LT(p.bytes_share, 0.1);
}

}  // namespace
}  // namespace commbench
