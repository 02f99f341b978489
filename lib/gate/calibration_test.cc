// Calibration from A/A repeats built here: a quiet point is gateable with what the budget affords, a noisy one is
// not and says how many repeats it would need; the budget at the A/A run's round time bounds the repeats; the JSON
// reads back; a comparison carries it.
#include "lib/gate/calibration.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

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

}  // namespace
}  // namespace commbench::gate
