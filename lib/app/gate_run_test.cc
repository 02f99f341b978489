// The gate's runs without a rank process: what a runner plans, the baseline kept and read back (a real file), the
// spec a baseline gate runs, and the variables of two variants. The runs themselves: tools/commbench's
// gate_cli_test.
#include "lib/app/gate_run.h"

#include <gtest/gtest.h>

#include "lib/core/temp_dir.h"
#include "lib/sweep/planner.h"

namespace commbench::app {
namespace {

// The first point the default sweep plans with the real Gloo backend.
Point FirstPoint() {
  auto backends = DescribeRegisteredBackends({"gloo"});
  EXPECT_TRUE(backends.ok());
  auto plan = PlanSweep(SweepSpec{}, *backends);
  EXPECT_TRUE(plan.ok() && !plan->launches.empty());
  return plan->launches.front().points.front();
}

result::ResultFile Baseline() {
  result::ResultFile file;
  file.header.spec.repeats = 3;
  file.header.environment.fingerprint = {
      {"host", "ci-runner-1"}, {"affinity", "0-1"}, {"cores_online", 2}, {"variables", nlohmann::json::object()}};
  file.header.spec.explain_factors.emplace_back();
  result::PointResult p;
  p.point = FirstPoint();
  p.id = p.point.Id();
  p.time_us.p50 = 10;
  p.time_us.mean = 10;
  p.repeat_p50_us = {10, 11, 9};
  p.repeat_mean_us = {10, 11, 9};
  p.correct = true;
  p.samples_us = result::SampleSet{3, {{1, 2, 3}}, ""};
  file.points.push_back(p);
  file.trailer.status = result::RunStatus::kComplete;
  return file;
}

TEST(GateRunTest, AKeptBaselineIsReadBackWithTheSpecTheGateRuns) {
  TempDir dir("gate-run-test-");
  ASSERT_FALSE(dir.path().empty());
  const std::string path = dir.path() + "/baseline.json";
  ASSERT_TRUE(KeepAsBaseline(Baseline(), path).ok());
  SweepSpec defaults, given;
  given.test_only_uniform_slowdown = 0.1;  // a TEST ONLY fault injection reaches the gate's run
  auto gate = LoadBaselineGate(path, given, defaults);
  ASSERT_TRUE(gate.ok()) << gate.status().message();
  EXPECT_EQ(gate->spec.repeats, 3);
  EXPECT_TRUE(gate->spec.explain_factors.empty());
  EXPECT_DOUBLE_EQ(gate->spec.test_only_uniform_slowdown, 0.1);
  ASSERT_EQ(gate->base.points.size(), 1u);
  EXPECT_EQ(gate->base.points[0].repeat_p50_us, (std::vector<double>{10, 11, 9}));
  EXPECT_TRUE(gate->base.points[0].samples_us.per_rank.empty());  // a baseline keeps no samples
}

TEST(GateRunTest, AFlagAskingForAnotherSweepOrAMissingBaselineIsBadInput) {
  TempDir dir("gate-run-test-");
  const std::string path = dir.path() + "/baseline.json";
  ASSERT_TRUE(KeepAsBaseline(Baseline(), path).ok());
  SweepSpec defaults, given;
  given.iters = 100;
  auto conflict = LoadBaselineGate(path, given, defaults);
  ASSERT_FALSE(conflict.ok());
  EXPECT_EQ(conflict.status().message().rfind(
                "the flags ask for another sweep than the baseline records: iters 100 (the baseline's: ", 0),
            0u)
      << conflict.status().message();
  EXPECT_NE(conflict.status().message().find("(accepted: the baseline's own spec; measure a new baseline with "
                                             "--update-baseline)"),
            std::string::npos);
  auto missing = LoadBaselineGate(dir.path() + "/none.json", defaults, defaults);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("none.json"), std::string::npos) << missing.status().message();
}

TEST(GateRunTest, TheRunnerPlansOrRefusesASweepBeforeAnyRankStarts) {
  GateRunner runner({}, "commbench gate", true);
  SweepSpec spec;  // gloo allreduce, the default sizes and groups
  ASSERT_TRUE(runner.Prepare(spec).ok());
  EXPECT_GT(runner.points(), 0u);
  spec.algos = {"no_such_algorithm"};
  Status none = runner.Prepare(spec);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.message().find("gloo has no allreduce algorithm 'no_such_algorithm'"), std::string::npos)
      << none.message();
  spec = SweepSpec{};
  spec.backends = {"no_such_backend"};
  EXPECT_FALSE(runner.Prepare(spec).ok());
}

TEST(GateRunTest, BothVariantsVariablesAreVariedAndAnAbResultKeepsNoSamples) {
  auto a = ParseVariant("NCCL_ALGO=Ring", "--a");
  auto b = ParseVariant("NCCL_ALGO=Tree,COMMBENCH_TEST_ONLY_UNIFORM_SLOWDOWN=0.1", "--b");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(VariedVariables(*a, *b), (std::set<std::string>{"NCCL_ALGO", kSlowdownVariable}));
  const result::ResultFile stripped = WithoutSamples(Baseline());
  ASSERT_EQ(stripped.points.size(), 1u);
  EXPECT_EQ(stripped.points[0].samples_us.cap, 0);
  EXPECT_TRUE(stripped.points[0].samples_us.per_rank.empty());
  EXPECT_EQ(stripped.points[0].repeat_p50_us.size(), 3u);
}

}  // namespace
}  // namespace commbench::app
