// The calibration a baseline file carries, on real files: kept in the baseline (which still loads as a baseline),
// read back; carried over when the baseline is replaced; a baseline without it loads with none; an older
// BASE.calibration.json beside it is still read (and said to be older); a broken block is bad input; an A/A run
// that failed gives no calibration; the host's reference samples ride beside the calibration.
#include "lib/app/gate_calibrate.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "lib/core/temp_dir.h"
#include "lib/sweep/planner.h"

namespace commbench::app {
namespace {

result::ResultFile Baseline() {
  auto backends = DescribeRegisteredBackends({"gloo"});
  EXPECT_TRUE(backends.ok());
  auto plan = PlanSweep(SweepSpec{}, *backends);
  EXPECT_TRUE(plan.ok() && !plan->launches.empty());
  result::ResultFile file;
  file.header.spec.repeats = 3;
  file.header.environment.fingerprint = {
      {"host", "ci-runner-1"}, {"affinity", "0-1"}, {"cores_online", 2}, {"variables", nlohmann::json::object()}};
  result::PointResult p;
  p.point = plan->launches.front().points.front();
  p.id = p.point.Id();
  p.time_us.p50 = p.time_us.mean = 10;
  p.repeat_p50_us = p.repeat_mean_us = {10, 11, 9, 10.5, 9.5};
  p.correct = true;
  file.points.push_back(p);
  file.trailer.status = result::RunStatus::kComplete;
  return file;
}

gate::Calibration OneSide() {
  gate::LookSchedule schedule;
  schedule.planned = 5;
  return gate::CalibrateOneSide(Baseline(), 10, 5, 240, schedule, gate::CompareOptions{});
}

TEST(GateCalibrateTest, TheBaselineKeepsItAndStillLoadsAsABaseline) {
  TempDir dir("gate-calibrate-test-");
  const std::string path = dir.path() + "/base.json";
  ASSERT_TRUE(KeepAsBaseline(Baseline(), path).ok());
  auto none = LoadCalibration(path);
  ASSERT_TRUE(none.ok()) << none.status().message();
  EXPECT_EQ(*none, nullptr);  // a baseline without the block (every older one) loads, with no calibration

  const gate::Calibration c = OneSide();
  ASSERT_EQ(c.points.size(), 1u);
  EXPECT_EQ(c.source, gate::CalibrationSource::kBaselineRepeats);
  EXPECT_TRUE(std::isnan(c.points[0].aa_ratio));
  ASSERT_TRUE(StoreCalibration(path, c).ok());
  bool legacy = true;
  auto back = LoadCalibration(path, &legacy);
  ASSERT_TRUE(back.ok() && *back) << back.status().message();
  EXPECT_FALSE(legacy);
  EXPECT_EQ((*back)->source, gate::CalibrationSource::kBaselineRepeats);
  EXPECT_DOUBLE_EQ((*back)->points[0].spread, c.points[0].spread);
  auto gate = LoadBaselineGate(path, SweepSpec{}, SweepSpec{});  // the block is no obstacle to the baseline
  ASSERT_TRUE(gate.ok()) << gate.status().message();
  EXPECT_EQ(gate->base.points.size(), 1u);

  // Replaced by --update-baseline: the runner's calibration stays with the new baseline.
  ASSERT_TRUE(KeepCalibratedBaseline(Baseline(), back->get(), nullptr, path).ok());
  auto kept = LoadCalibration(path);
  ASSERT_TRUE(kept.ok() && *kept);
  EXPECT_EQ((*kept)->points.size(), 1u);
}

TEST(GateCalibrateTest, AnOlderFileBesideTheBaselineIsStillReadAndABrokenBlockIsBadInput) {
  TempDir dir("gate-calibrate-test-");
  const std::string path = dir.path() + "/base.json";
  ASSERT_TRUE(KeepAsBaseline(Baseline(), path).ok());
  nlohmann::json old = gate::CalibrationToJson(OneSide());
  old.erase("source");  // as the first files were written
  std::ofstream(gate::CalibrationPath(path)) << old.dump();
  bool legacy = false;
  auto c = LoadCalibration(path, &legacy);
  ASSERT_TRUE(c.ok() && *c) << c.status().message();
  EXPECT_TRUE(legacy);
  EXPECT_EQ((*c)->source, gate::CalibrationSource::kAa);

  nlohmann::json j = nlohmann::json::parse(std::ifstream(path));
  j[kCalibrationKey] = {{"kind", "commbench calibration"}, {"schema_version", 9}};
  std::ofstream(path) << j.dump();
  auto broken = LoadCalibration(path);
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(broken.status().message().find("base.json: not a commbench calibration of schema_version 1"),
            std::string::npos)
      << broken.status().message();
}

// Both blocks kept together and read back in one load; a baseline with neither loads with neither.
TEST(GateCalibrateTest, TheHostReferenceRidesBesideTheCalibration) {
  TempDir dir("gate-calibrate-test-");
  const std::string path = dir.path() + "/base.json";
  ASSERT_TRUE(KeepAsBaseline(Baseline(), path).ok());
  auto none = LoadBaselineBlocks(path);
  ASSERT_TRUE(none.ok()) << none.status().message();
  EXPECT_EQ(none->calibration, nullptr);
  EXPECT_EQ(none->host.size(), 0u);

  result::HostReference host;
  host.Add({0.0035, 0.0004});
  host.Add({0.0036, 0.0005});
  const gate::Calibration c = OneSide();
  ASSERT_TRUE(KeepCalibratedBaseline(Baseline(), &c, &host, path).ok());
  auto both = LoadBaselineBlocks(path);
  ASSERT_TRUE(both.ok()) << both.status().message();
  ASSERT_NE(both->calibration, nullptr);
  EXPECT_FALSE(both->legacy_calibration);
  EXPECT_EQ(both->host.loopback_s, host.loopback_s);
  EXPECT_EQ(both->host.copy_s, host.copy_s);
  ASSERT_TRUE(StoreCalibration(path, c).ok());  // calibrating again keeps the host's samples
  EXPECT_EQ(LoadBaselineBlocks(path)->host.size(), 2u);

  nlohmann::json j = nlohmann::json::parse(std::ifstream(path));
  j[result::kHostReferenceKey]["copy_s"] = {0.0004};
  std::ofstream(path) << j.dump();
  auto broken = LoadBaselineBlocks(path);
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.status().message().find("host_reference: loopback_s has 2 samples, copy_s 1"), std::string::npos)
      << broken.status().message();
}

TEST(GateCalibrateTest, AFailedAaRunGivesNoCalibration) {
  SequentialOutcome run;
  run.base = run.now = Baseline();
  run.now.trailer.status = result::RunStatus::kPartial;
  run.now.trailer.failure = "rank 1 exited with code 1";
  run.comparison.options.sequential_run = gate::SequentialRun{};
  auto c = CalibrateAa(run, 240, gate::LookSchedule{}, gate::CompareOptions{});
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(), "the A/A run failed: rank 1 exited with code 1");
  run.now.trailer.status = result::RunStatus::kComplete;
  auto fine = CalibrateAa(run, 240, gate::LookSchedule{}, gate::CompareOptions{});
  ASSERT_TRUE(fine.ok());
  EXPECT_EQ(fine->source, gate::CalibrationSource::kAa);
  EXPECT_NEAR(fine->points[0].aa_ratio, 1, 1e-12);
}

}  // namespace
}  // namespace commbench::app
