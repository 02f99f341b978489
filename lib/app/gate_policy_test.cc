#include "lib/app/gate_policy.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace commbench::app {
namespace {

TEST(GatePolicyTest, AVariantSetsVariablesForTheRanksAndMayPlantASlowdown) {
  auto v = ParseVariant("NCCL_ALGO=Ring,LD_LIBRARY_PATH=old/,COMMBENCH_TEST_ONLY_UNIFORM_SLOWDOWN=0.1", "--b");
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(v->rank_env,
            (std::vector<std::pair<std::string, std::string>>{{"NCCL_ALGO", "Ring"}, {"LD_LIBRARY_PATH", "old/"}}));
  ASSERT_TRUE(v->uniform_slowdown.has_value());
  EXPECT_DOUBLE_EQ(*v->uniform_slowdown, 0.1);
  EXPECT_EQ(v->Names(), (std::vector<std::string>{"NCCL_ALGO", "LD_LIBRARY_PATH", kSlowdownVariable}));
  auto empty = ParseVariant("", "--a");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->rank_env.empty());
  EXPECT_FALSE(empty->uniform_slowdown.has_value());
}

TEST(GatePolicyTest, ABadVariantIsOneLineNamingIt) {
  auto no_eq = ParseVariant("NCCL_ALGO", "--a");
  ASSERT_FALSE(no_eq.ok());
  EXPECT_EQ(no_eq.status().message(),
            "--a: invalid assignment 'NCCL_ALGO' (accepted: NAME=VALUE[,NAME=VALUE...], e.g. NCCL_ALGO=Ring or "
            "LD_LIBRARY_PATH=old/)");
  EXPECT_FALSE(ParseVariant("1X=2", "--a").ok());
  EXPECT_FALSE(ParseVariant("A=1,", "--a").ok());  // an empty item
  auto slowdown = ParseVariant("COMMBENCH_TEST_ONLY_UNIFORM_SLOWDOWN=11", "--b");
  ASSERT_FALSE(slowdown.ok());
  EXPECT_NE(slowdown.status().message().find("(accepted: a fraction from 0 to 10)"), std::string::npos);
}

TEST(GatePolicyTest, OnlyKeysSetAwayFromTheDefaultsMustAgreeWithTheBaseline) {
  SweepSpec defaults, baseline, given;
  baseline.repeats = 5;
  given.repeats = 5;  // set, and as the baseline has it
  EXPECT_TRUE(SpecConflicts(given, baseline, defaults).empty());
  given.iters = 100;  // set, and not what the baseline records
  const auto conflicts = SpecConflicts(given, baseline, defaults);
  ASSERT_EQ(conflicts.size(), 1u);
  EXPECT_EQ(conflicts[0].rfind("iters 100 (the baseline's: ", 0), 0u) << conflicts[0];
  given.iters = defaults.iters;
  given.test_only_uniform_slowdown = 0.2;  // TEST ONLY keys may differ
  EXPECT_TRUE(SpecConflicts(given, baseline, defaults).empty());
}

TEST(GatePolicyTest, TheGateRunsTheBaselinesSpecWithTheGivenFaultInjections) {
  SweepSpec baseline, given;
  baseline.repeats = 7;
  baseline.explain_factors.emplace_back();
  given.test_only_uniform_slowdown = 0.1;
  const SweepSpec spec = GateSpec(baseline, given);
  EXPECT_EQ(spec.repeats, 7);
  EXPECT_TRUE(spec.explain_factors.empty());
  EXPECT_DOUBLE_EQ(spec.test_only_uniform_slowdown, 0.1);
}

result::ResultFile OneRepeat(double p50, bool correct = true) {
  result::ResultFile run;
  result::PointResult p;
  p.id = "gloo/allreduce/x";
  p.time_us.p50 = p50;
  p.time_us.mean = p50;
  p.correct = correct;
  p.samples_us = result::SampleSet{3, {{1, 2, 3}}, ""};
  run.points.push_back(p);
  run.trailer.status = result::RunStatus::kComplete;
  return run;
}

TEST(GatePolicyTest, RepeatsOfAVariantBecomeOneRecordAndTooFewArePartial) {
  const result::ResultFile merged = MergeRepeats({OneRepeat(10), OneRepeat(12)}, 2);
  ASSERT_EQ(merged.points.size(), 1u);
  EXPECT_EQ(merged.points[0].repeat_p50_us, (std::vector<double>{10, 12}));
  EXPECT_EQ(merged.trailer.status, result::RunStatus::kComplete);
  EXPECT_TRUE(CompleteAndCorrect(merged));
  const result::ResultFile short_run = MergeRepeats({OneRepeat(10)}, 3);
  EXPECT_EQ(short_run.trailer.status, result::RunStatus::kPartial);
  EXPECT_EQ(short_run.trailer.failure, "ran 1 of 3 repeats");
  EXPECT_FALSE(CompleteAndCorrect(short_run));
  EXPECT_FALSE(CompleteAndCorrect(MergeRepeats({OneRepeat(10), OneRepeat(11, false)}, 2)));
}

TEST(GatePolicyTest, ABaselineKeepsNoRawSamples) {
  const nlohmann::json text = nlohmann::json::parse(BaselineText(OneRepeat(10)));
  const nlohmann::json& point = text["points"][0];
  EXPECT_TRUE(!point.contains("samples_us") || point["samples_us"].is_null() ||
              point["samples_us"].value("kept", 0) == 0)
      << point.dump();
}

}  // namespace
}  // namespace commbench::app
