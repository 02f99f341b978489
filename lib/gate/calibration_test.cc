// Calibration from A/A repeats built here: a quiet point is gateable with what the budget affords, a noisy one is
// not and says how many repeats it would need; the budget at the A/A run's round time bounds the repeats; the JSON
// reads back; a comparison carries it.
#include "lib/gate/calibration.h"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <random>
#include <tuple>

#include "lib/gate/outputs.h"

namespace commbench::gate {
namespace {

result::ResultFile Side(double quiet_cv, double noisy_cv, int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0, 1);
  result::ResultFile f;
  for (const auto& [id, cv] : {std::pair<std::string, double>{"quiet", quiet_cv}, {"noisy", noisy_cv}}) {
    result::PointResult p;
    p.id = id;
    p.point.bytes = 65536;
    for (int i = 0; i < n; ++i) p.repeat_p50_us.push_back(100 * std::exp(cv * z(rng)));
    f.points.push_back(p);
  }
  return f;
}

TEST(CalibrationTest, QuietIsGateableNoisyIsNotAndSaysWhatItNeeds) {
  LookSchedule schedule{160, 40, 20, true, true};
  CompareOptions options;  // floor 5 %, alpha 0.01
  // 40 rounds took 40 s: a 240 s budget affords 160... capped at the plan.
  const Calibration c = Calibrate(Side(0.02, 0.15, 40, 1), Side(0.02, 0.15, 40, 2), 40, 40, 240, schedule, options);
  ASSERT_EQ(c.points.size(), 2u);
  EXPECT_DOUBLE_EQ(c.round_s, 1);
  const PointCalibration& quiet = c.points[0];
  EXPECT_EQ(quiet.id, "quiet");
  EXPECT_EQ(quiet.budget_repeats, 160);
  EXPECT_TRUE(quiet.gateable) << quiet.detectable;
  EXPECT_NEAR(quiet.false_alarm, 0.005, 1e-6);  // the whole alpha spent by the plan's end, "slower" half
  const PointCalibration& noisy = c.points[1];
  EXPECT_FALSE(noisy.gateable);
  EXPECT_GT(noisy.detectable, 0.05);
  EXPECT_GT(noisy.repeats_needed, 160);
  EXPECT_NE(CalibrationToText(c).find("ungateable  noisy"), std::string::npos) << CalibrationToText(c);

  // A budget of 60 s affords 60 rounds: fewer repeats, a larger detectable change, less alpha spent.
  const Calibration tight = Calibrate(Side(0.02, 0.15, 40, 1), Side(0.02, 0.15, 40, 2), 40, 40, 60, schedule, options);
  EXPECT_EQ(tight.points[0].budget_repeats, 60);
  EXPECT_GT(tight.points[0].detectable, quiet.detectable);
  EXPECT_LT(tight.points[0].false_alarm, quiet.false_alarm);
}

TEST(CalibrationTest, ReadsBackAndRidesWithAComparison) {
  const Calibration c =
      Calibrate(Side(0.02, 0.15, 20, 1), Side(0.02, 0.15, 20, 2), 20, 20, 0, LookSchedule{}, CompareOptions{});
  auto back = CalibrationFromJson(CalibrationToJson(c), "c.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->points.size(), 2u);
  EXPECT_EQ(back->points[1].gateable, c.points[1].gateable);
  EXPECT_DOUBLE_EQ(back->points[1].spread, c.points[1].spread);
  EXPECT_FALSE(CalibrationFromJson(nlohmann::json{{"kind", "other"}}, "x.json").ok());
  EXPECT_EQ(CalibrationPath("ci/base.json"), "ci/base.calibration.json");
  EXPECT_EQ(CalibrationPath("base"), "base.calibration.json");

  const Calibration few =
      Calibrate(Side(0.02, 0.15, 2, 1), Side(0.02, 0.15, 2, 2), 20, 2, 0, LookSchedule{}, CompareOptions{});
  EXPECT_FALSE(few.points[0].gateable);
  EXPECT_NE(CalibrationToText(few).find("too few A/A repeats (2 a side)"), std::string::npos) << CalibrationToText(few);

  Comparison cmp;
  cmp.options.calibration = std::make_shared<const Calibration>(c);
  const nlohmann::json j = ComparisonToJson(cmp, "a", "b");
  EXPECT_EQ(j["options"]["calibration"]["points"].size(), 2u);
  const std::string text = ComparisonToText(cmp);
  EXPECT_EQ(text.rfind("calibration: ungateable here: noisy: a repeat spreads ", 0), 0u) << text;  // said first
  EXPECT_NE(text.find("; it would need "), std::string::npos) << text;
  EXPECT_NE(ComparisonToMarkdown(cmp).find("- calibration: ungateable here: noisy"), std::string::npos);
  EXPECT_EQ(UngateableText(c.points[0]), "");

  // The first files had no source: A/A. An unknown one is named.
  nlohmann::json old = CalibrationToJson(c);
  EXPECT_EQ(old["source"], "aa");
  old.erase("source");
  EXPECT_EQ(CalibrationFromJson(old, "c.json")->source, CalibrationSource::kAa);
  old["source"] = "guess";
  auto bad = CalibrationFromJson(old, "c.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "c.json: gate_calibration: unknown source 'guess' (accepted: aa, baseline-repeats)");
}

TEST(CalibrationTest, OneSidesRepeatsGiveTheSpreadWithoutAnAaRatio) {
  LookSchedule schedule{160, 40, 20, true, true};
  const Calibration c = CalibrateOneSide(Side(0.02, 0.3, 40, 1), 40, 40, 240, schedule, CompareOptions{});
  EXPECT_EQ(c.source, CalibrationSource::kBaselineRepeats);
  ASSERT_EQ(c.points.size(), 2u);
  EXPECT_TRUE(std::isnan(c.points[0].aa_ratio));
  EXPECT_TRUE(CalibrationToJson(c)["points"][0]["aa_ratio"].is_null());
  EXPECT_TRUE(c.points[0].gateable);
  EXPECT_FALSE(c.points[1].gateable);
  EXPECT_NEAR(c.points[1].spread, 0.3, 0.12);  // a log-normal of sigma 0.3, 40 draws
  EXPECT_NE(CalibrationToText(c).find("the baseline's own repeats"), std::string::npos);
}

// One job's side: every repeat of "quiet" at `quiet` and of "drifting" at `drifting`, each within 0.2 %.
result::ResultFile JobSide(double quiet, double drifting, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0, 0.002);
  result::ResultFile f;
  for (const auto& [id, level] : {std::pair<std::string, double>{"quiet", quiet}, {"drifting", drifting}}) {
    result::PointResult p;
    p.id = id;
    p.point.bytes = 65536;
    for (int i = 0; i < 20; ++i) p.repeat_p50_us.push_back(level * std::exp(z(rng)));
    f.points.push_back(p);
  }
  return f;
}

// Every gate --calibrate is one more job of the baseline's build: the jobs accumulate (the latest 20), and from
// three with the baseline's own the calibration tells how far they drift and whether a stored baseline can gate
// each point here. A new baseline (another build) starts without them; a file from before them still loads.
TEST(CalibrationTest, JobsOfTheBaselinesBuildAccumulateAndTellTheirDrift) {
  const result::ResultFile base = JobSide(100, 100, 1);
  const std::vector<std::pair<double, double>> jobs = {{100.1, 115}, {99.9, 90}, {100.05, 108}};
  std::optional<Calibration> c;
  for (size_t j = 0; j < jobs.size(); ++j) {
    Calibration next = Calibrate(JobSide(jobs[j].first, jobs[j].second, 10 + j),
                                 JobSide(jobs[j].first, jobs[j].second, 20 + j), 20, 20, 0, LookSchedule{}, {});
    next.job_host_s = {0.004 + 0.0001 * static_cast<double>(j)};  // this job's host speed
    AddJobs(c ? &*c : nullptr, base, std::nan(""), {}, &next);
    c = next;
    if (j == 0) {  // the baseline's job and one more: no spread told yet
      EXPECT_TRUE(c->points[0].gateable);
      EXPECT_TRUE(std::isinf(c->points[1].job_detectable));
      EXPECT_NE(CalibrationToText(*c).find("2 jobs of this build so far"), std::string::npos) << CalibrationToText(*c);
    }
  }
  ASSERT_EQ(c->points.size(), 2u);
  const PointCalibration& quiet = c->points[0];
  const PointCalibration& drifting = c->points[1];
  EXPECT_EQ(quiet.job_medians_us.size(), 3u);
  EXPECT_NEAR(drifting.job_medians_us[0], 115, 0.5);
  EXPECT_LT(quiet.job_detectable, 0.05);
  EXPECT_TRUE(quiet.gateable);
  EXPECT_NEAR(drifting.job_spread, 0.10, 0.03);  // logs of 100, 115, 90, 108
  EXPECT_GT(drifting.job_detectable, 0.05);
  EXPECT_FALSE(drifting.gateable);  // its repeats alone would gate it
  EXPECT_LE(drifting.detectable, drifting.min_effect);
  EXPECT_EQ(UngateableText(drifting).rfind("against a stored baseline, 4 jobs of this build spread ", 0), 0u)
      << UngateableText(drifting);
  EXPECT_EQ(SteadyJobs(*c, std::nan("")).medians_us.at("drifting").size(), 3u);
  EXPECT_EQ(c->job_host_s, (std::vector<double>{0.004, 0.0041, 0.0042}));

  auto back = CalibrationFromJson(CalibrationToJson(*c), "c.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->points[1].job_medians_us, drifting.job_medians_us);
  EXPECT_EQ(back->job_host_s, c->job_host_s);
  EXPECT_DOUBLE_EQ(back->points[1].job_detectable, drifting.job_detectable);
  nlohmann::json old = CalibrationToJson(*c);
  for (auto& p : old["points"]) {
    p.erase("job_medians_us");
    p.erase("job_spread");
    p.erase("job_detectable");
  }
  old.erase("job_host_s");
  auto older = CalibrationFromJson(old, "c.json");
  ASSERT_TRUE(older.ok()) << older.status().message();
  EXPECT_TRUE(older->job_host_s.empty());
  EXPECT_TRUE(older->points[1].job_medians_us.empty());

  const Calibration fresh = WithoutJobs(*c);
  EXPECT_TRUE(fresh.points[1].job_medians_us.empty());
  EXPECT_TRUE(fresh.points[1].gateable);  // its repeats' figure again
  EXPECT_TRUE(SteadyJobs(fresh, std::nan("")).medians_us.empty());
  EXPECT_TRUE(fresh.job_host_s.empty());

  for (int j = 0; j < 25; ++j) {
    Calibration next = Calibrate(JobSide(100, 100, 100 + j), JobSide(100, 100, 200 + j), 20, 20, 0, LookSchedule{}, {});
    AddJobs(&*c, base, std::nan(""), {}, &next);
    c = next;
  }
  EXPECT_EQ(c->points[0].job_medians_us.size(), kMostCalibrationJobs);
}

// A job taken in a spell of the host (its reference 32 % slower, every point 15-20 % slower, as one calibration job
// on this VM) is left out of the jobs a gate judges against, and said so: the host rule catches a gate job in such
// a spell. Jobs whose host ran as the others' did, and jobs that measured none, count.
TEST(CalibrationTest, AJobInASpellOfTheHostIsLeftOut) {
  const result::ResultFile base = JobSide(100, 100, 1);
  const std::vector<std::tuple<double, double>> jobs = {
      {118, 0.00479}, {101, 0.00363}, {99, 0.00364}, {100.5, 0.00357}, {100, 0}};
  std::optional<Calibration> c;
  for (size_t j = 0; j < jobs.size(); ++j) {
    const double level = std::get<0>(jobs[j]);
    Calibration next =
        Calibrate(JobSide(level, level, 30 + j), JobSide(level, level, 40 + j), 20, 20, 0, LookSchedule{}, {});
    next.job_host_s = {std::get<1>(jobs[j])};
    AddJobs(c ? &*c : nullptr, base, 0.003635, {}, &next);
    c = next;
  }
  const PointCalibration& p = c->points[0];
  EXPECT_EQ(p.jobs_left_out, 1u);
  EXPECT_LT(p.job_spread, 0.01);  // 100, 101, 99, 100.5, 100: the spell's 118 not among them
  EXPECT_NE(CalibrationToText(*c).find("5 jobs of this build spread "), std::string::npos) << CalibrationToText(*c);
  EXPECT_NE(CalibrationToText(*c).find("(1 more left out: the host ran more than 3 % off the others' in them)"),
            std::string::npos)
      << CalibrationToText(*c);
  const JobsToJudge judged = SteadyJobs(*c, 0.003635);
  EXPECT_EQ(judged.left_out, 1u);
  EXPECT_EQ(judged.medians_us.at("quiet").size(), 4u);
  EXPECT_EQ(judged.host_s.size(), 3u);  // the spell's left out, the unmeasured one has none
  auto back = CalibrationFromJson(CalibrationToJson(*c), "c.json");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->points[0].jobs_left_out, 1u);
}

}  // namespace
}  // namespace commbench::gate
