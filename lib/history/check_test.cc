#include "lib/history/check.h"

#include <gtest/gtest.h>

#include <fstream>
#include <random>

#include <nlohmann/json.hpp>

#include "lib/core/temp_dir.h"

namespace commbench::history {
namespace {

using nlohmann::json;

// A history of `n` runs of the real sweep's file, each point's 3 repeats set to its p50 with 2 % noise, times
// (1 + step) from run `at` on.
std::string MakeHistory(const std::string& root, int n, int at, double step) {
  std::ifstream in("reports/testdata/real_sweep_g1-4.json");
  const json base = json::parse(in);
  std::mt19937_64 rng(3);
  std::normal_distribution<double> noise(0, 0.02);
  const std::string dir = root + "/h";
  for (int i = 0; i < n; ++i) {
    json j = base;
    j["schema_version"] = 3;
    for (json& p : j["points"]) {
      const double t = p["time_us"]["p50"].get<double>() * (i >= at ? 1 + step : 1);
      std::vector<double> r = {t * (1 + noise(rng)), t * (1 + noise(rng)), t * (1 + noise(rng))};
      p["repeats"] = {{"n", 3}, {"p50_us", r}, {"mean_us", r}};
    }
    const std::string path = root + "/r" + std::to_string(i) + ".json";
    std::ofstream(path) << j.dump();
    EXPECT_TRUE(AddRun(dir, {path, "c" + std::to_string(i), ""}).ok());
  }
  return dir;
}

TEST(Check, RecentSlowdownIsARegressionAtItsRun) {
  TempDir tmp("check-test-");
  auto r = CheckHistory(MakeHistory(tmp.path(), 24, 20, 0.15), {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_FALSE(r->series.empty());
  for (const SeriesCheck& s : r->series) {
    ASSERT_EQ(s.changes.size(), 1u) << s.series.point_id;
    EXPECT_EQ(s.changes[0].index, 20);
    EXPECT_EQ(s.changes[0].commit, "c20");
    EXPECT_NEAR(s.changes[0].ratio, 1.15, 0.03);
    EXPECT_LT(s.changes[0].ratio_lo, 1.15);
    EXPECT_GT(s.changes[0].ratio_hi, 1.1);
    EXPECT_EQ(s.verdict, SeriesVerdict::kRegression);
    ASSERT_EQ(s.levels.size(), 2u);
  }
  EXPECT_EQ(r->ExitCode(), 1);
  const json j = CheckToJson(*r);
  EXPECT_EQ(j["series"][0]["changes"][0]["run"], "000020-c20");
  EXPECT_NE(CheckToJunit(*r).find("<failure"), std::string::npos);
  EXPECT_NE(CheckToMarkdown(*r).find("regression"), std::string::npos);
}

TEST(Check, OldSlowdownIsReportedButPasses) {
  TempDir tmp("check-test-");
  CheckOptions o;
  o.last = 5;
  auto r = CheckHistory(MakeHistory(tmp.path(), 30, 10, 0.15), o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->series[0].changes.size(), 1u);
  EXPECT_EQ(r->ExitCode(), 0);
}

TEST(Check, SpeedupIsNotARegression) {
  TempDir tmp("check-test-");
  auto r = CheckHistory(MakeHistory(tmp.path(), 24, 20, -0.2), {});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->series[0].changes.empty());
  EXPECT_EQ(r->ExitCode(), 0);
}

TEST(Check, SlowdownBelowTheFloorPasses) {
  TempDir tmp("check-test-");
  CheckOptions o;
  o.min_effect = 0.3;
  auto r = CheckHistory(MakeHistory(tmp.path(), 24, 20, 0.15), o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->ExitCode(), 0);
}

TEST(Check, ShortSeriesCannotSay) {
  TempDir tmp("check-test-");
  auto r = CheckHistory(MakeHistory(tmp.path(), 5, 3, 0.5), {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->ExitCode(), 3);
  EXPECT_NE(CheckToJunit(*r).find("<skipped"), std::string::npos);
}

}  // namespace
}  // namespace commbench::history
