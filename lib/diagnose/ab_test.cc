// The cut's bootstrap interval: deterministic, containing what it measures, wider with noise, and fast.
#include "lib/diagnose/ab.h"

#include <gtest/gtest.h>

#include <chrono>
#include <iostream>

#include "lib/diagnose/test_util.h"

namespace commbench {
namespace diagnose {
namespace {

using testing::BuildAnalysisInput;
using testing::MakeResult;
using testing::MakeSeries;
using testing::OneToEight;
using testing::PointSpec;

// A grows by 40 us per group, B by `b_slope`; both with standard error `rel_se` of each value.
AnalysisInput Pair(double b_slope, double rel_se) {
  PointSpec a, b;
  a.rel_se = b.rel_se = rel_se;
  b.axes["pin"] = "compact";
  return BuildAnalysisInput(MakeResult({MakeSeries(a, OneToEight(), [](int g) { return 60.0 + 40 * g; }),
                                        MakeSeries(b, OneToEight(), [b_slope](int g) { return 60.0 + b_slope * g; })},
                                       "commbench sweep"));
}

TEST(BootstrapCut, DeterministicAndAroundTheCut) {
  AnalysisInput in = Pair(10, 0.01);
  result::CutInterval c = BootstrapCut(in, 0, 1);
  result::CutInterval again = BootstrapCut(in, 0, 1);
  EXPECT_EQ(c.lo, again.lo);
  EXPECT_EQ(c.hi, again.hi);
  EXPECT_LT(c.lo, 0.75);
  EXPECT_GT(c.hi, 0.75);
  EXPECT_GT(c.lo, 0.65);
  EXPECT_LT(c.hi, 0.85);
}

TEST(BootstrapCut, WiderWithNoisierPoints) {
  result::CutInterval quiet = BootstrapCut(Pair(10, 0.01), 0, 1);
  result::CutInterval noisy = BootstrapCut(Pair(10, 0.15), 0, 1);
  EXPECT_GT(noisy.hi - noisy.lo, 3 * (quiet.hi - quiet.lo));
}

TEST(BootstrapCut, NothingToResampleWithoutTwoSharedGroupCounts) {
  PointSpec a, b;
  b.axes["pin"] = "compact";
  AnalysisInput in = BuildAnalysisInput(MakeResult(
      {MakeSeries(a, {1, 2}, [](int g) { return 10.0 * g; }), MakeSeries(b, {2, 3}, [](int g) { return 10.0 * g; })},
      "commbench sweep"));
  result::CutInterval c = BootstrapCut(in, 0, 1);
  EXPECT_EQ(c.lo, 0);
  EXPECT_EQ(c.hi, 0);
}

// A thousand resamples of an 8-point pair: cheap enough to run for every pair of a large sweep.
TEST(BootstrapCut, Fast) {
  AnalysisInput in = Pair(10, 0.05);
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 20; ++i) BootstrapCut(in, 0, 1);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / 20;
  std::cout << "bootstrap: " << ms << " ms per interval (1000 resamples, 8 points)\n";
  EXPECT_LT(ms, 20) << ms << " ms per interval";
}

TEST(JudgeAbs, StatusFollowsFromEveryAb) {
  auto rec = [](result::AbOutcome o, double cut, double lo, double hi) {
    result::AbRecord r;
    r.outcome = o;
    r.cut = cut;
    r.cut_ci95 = {lo, hi};
    return r;
  };
  const auto supports = rec(result::AbOutcome::kSupports, 0.8, 0.6, 0.9);
  const auto rules_out = rec(result::AbOutcome::kRulesOut, 0.05, -0.1, 0.2);
  const auto unsure = rec(result::AbOutcome::kInconclusive, 0.45, 0.35, 0.55);
  EXPECT_EQ(JudgeAbs({}).status, result::FindingStatus::kSuspected);
  EXPECT_EQ(JudgeAbs({}).decisive, -1);
  EXPECT_EQ(JudgeAbs({unsure, supports}).status, result::FindingStatus::kConfirmed);
  EXPECT_EQ(JudgeAbs({unsure, supports}).decisive, 1);
  EXPECT_EQ(JudgeAbs({unsure, rules_out}).status, result::FindingStatus::kRuledOut);
  AbJudgement both = JudgeAbs({rules_out, supports});
  EXPECT_EQ(both.status, result::FindingStatus::kSuspected);
  EXPECT_TRUE(both.conflicting);
  EXPECT_EQ(JudgeAbs({unsure}).status, result::FindingStatus::kSuspected);
  // Support credited to another cause does not confirm this one.
  auto elsewhere = supports;
  elsewhere.supports_cause = "another cause";
  EXPECT_EQ(JudgeAbs({elsewhere}).status, result::FindingStatus::kSuspected);
}

}  // namespace
}  // namespace diagnose
}  // namespace commbench
