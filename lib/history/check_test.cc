#include "lib/history/check.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "lib/core/temp_dir.h"

namespace commbench::history {
namespace {

using nlohmann::json;

// What a sweep records when outside processes took half of both CPUs over its timed window.
json HalfTakenByMake() {
  return {{"window_s", 1.0},
          {"cpu_busy_s", 2.0},
          {"ranks_cpu_s", 0.9},
          {"own_cpu_s", 0.9},
          {"outside_cpu_s", 1.0},
          {"outside_share", 0.5},
          {"monitor_cpu_s", 0.0},
          {"per_cpu",
           {{{"cpu", 0}, {"busy_s", 1.0}, {"outside_s", 0.5}}, {{"cpu", 1}, {"busy_s", 1.0}, {"outside_s", 0.5}}}},
          {"top", {{{"pid", 42}, {"comm", "make"}, {"cpu_s", 1.0}, {"cpus", {0, 1}}}}}};
}

// A history of `n` runs of the real sweep's file, each point's 3 repeats set to its p50 with 2 % noise, times
// (1 + step) from run `at` on; run `disturbed` (if any) measured while make took half of the CPUs.
std::string MakeHistory(const std::string& root, int n, int at, double step, int disturbed = -1, double cv = 0.02) {
  std::ifstream in("reports/testdata/real_sweep_g1-4.json");
  const json base = json::parse(in);
  std::mt19937_64 rng(3);
  std::normal_distribution<double> noise(0, cv);
  const std::string dir = root + "/h";
  for (int i = 0; i < n; ++i) {
    json j = base;
    j["schema_version"] = 3;
    for (json& p : j["points"]) {
      const double t = p["time_us"]["p50"].get<double>() * (i >= at ? 1 + step : 1);
      std::vector<double> r = {t * (1 + noise(rng)), t * (1 + noise(rng)), t * (1 + noise(rng))};
      p["repeats"] = {{"n", 3}, {"p50_us", r}, {"mean_us", r}};
      if (i == disturbed) p["host_load"] = HalfTakenByMake();
    }
    const std::string path = root + "/r" + std::to_string(i) + ".json";
    std::ofstream(path) << j.dump();
    EXPECT_TRUE(AddRun(dir, {path, "c" + std::to_string(i), ""}).ok());
  }
  return dir;
}

// --window N: only each runner's last N runs are read; the change is found at its place among them.
TEST(Check, TheWindowReadsOnlyTheLastRuns) {
  TempDir tmp("check-test-");
  CheckOptions o;
  o.window = 20;
  auto r = CheckHistory(MakeHistory(tmp.path(), 24, 20, 0.15), o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_FALSE(r->series.empty());
  for (const SeriesCheck& s : r->series) {
    ASSERT_EQ(s.series.runs.size(), 20u);
    EXPECT_EQ(s.series.runs.front().commit, "c4");
    ASSERT_EQ(s.changes.size(), 1u) << s.series.point_id;
    EXPECT_EQ(s.changes[0].commit, "c20");
  }
  EXPECT_EQ(r->ExitCode(), 1);
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

// A level change next to a run measured under outside load may be the load: named, and not called a regression
// (exit 3: re-run on a quiet runner). The same change with the load far from it is a regression.
TEST(Check, ARecentSlowdownNextToADisturbedRunIsDisturbedNotARegression) {
  TempDir tmp("check-test-");
  auto r = CheckHistory(MakeHistory(tmp.path(), 24, 20, 0.15, 21), {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_FALSE(r->series.empty());
  for (const SeriesCheck& s : r->series) {
    ASSERT_EQ(s.changes.size(), 1u) << s.series.point_id;
    EXPECT_EQ(s.changes[0].disturbed_runs, std::vector<int>{21});
    EXPECT_NE(s.changes[0].disturbed_why.find("outside processes took 50% of the ranks' CPUs"), std::string::npos)
        << s.changes[0].disturbed_why;
    EXPECT_EQ(s.verdict, SeriesVerdict::kDisturbed);
  }
  EXPECT_EQ(r->ExitCode(), 3);
  EXPECT_NE(CheckToText(*r).find("[disturbed: run 21 measured while outside processes took 50%"), std::string::npos);
  EXPECT_NE(CheckToJunit(*r).find("<skipped message=\"disturbed: slower from run 20"), std::string::npos);
  EXPECT_EQ(CheckToJson(*r)["series"][0]["changes"][0]["disturbed_runs"], json::array({21}));

  TempDir far("check-test-");
  auto quiet_near = CheckHistory(MakeHistory(far.path(), 24, 20, 0.15, 5), {});
  ASSERT_TRUE(quiet_near.ok());
  EXPECT_EQ(quiet_near->ExitCode(), 1);
  for (const SeriesCheck& s : quiet_near->series) EXPECT_TRUE(s.changes.at(0).disturbed_runs.empty());
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

// A history whose run i has every point at its p50 times factors[i] / 100 (3 repeats at -1 %, 0, +1 %).
std::string MakeHistoryOf(const std::string& root, const std::vector<double>& factors) {
  std::ifstream in("reports/testdata/real_sweep_g1-4.json");
  const json base = json::parse(in);
  const std::string dir = root + "/h";
  for (size_t i = 0; i < factors.size(); ++i) {
    json j = base;
    j["schema_version"] = 3;
    for (json& p : j["points"]) {
      const double t = p["time_us"]["p50"].get<double>() * factors[i] / 100;
      std::vector<double> r = {t * 0.99, t, t * 1.01};
      p["repeats"] = {{"n", 3}, {"p50_us", r}, {"mean_us", r}};
    }
    const std::string path = root + "/r" + std::to_string(i) + ".json";
    std::ofstream(path) << j.dump();
    EXPECT_TRUE(AddRun(dir, {path, "c" + std::to_string(i), ""}).ok());
  }
  return dir;
}

// Issue 53: 8 runs, the last 4 planted 30 % slower. The permutations cannot reach alpha at 4 and 4 (2/70), so
// this said "ok, 0 change points", exit 0; Student's t decides it now: a regression from run 4.
TEST(Check, EightRunsWithTheLastFourSlowerIsARegression) {
  TempDir tmp("check-test-");
  auto r = CheckHistory(MakeHistory(tmp.path(), 8, 4, 0.3), {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  for (const SeriesCheck& s : r->series) {
    ASSERT_EQ(s.changes.size(), 1u) << s.series.point_id;
    EXPECT_EQ(s.changes[0].index, 4);
    EXPECT_EQ(s.changes[0].test, SplitTest::kStudentT);
    EXPECT_EQ(s.verdict, SeriesVerdict::kRegression);
  }
  EXPECT_EQ(r->ExitCode(), 1);
  EXPECT_EQ(CheckToJson(*r)["series"][0]["changes"][0]["test"], "student t");
}

// A 29 % slowdown over runs that spread 13 % (one run to the next): beyond the floor and the noise, but 4 runs
// after it do not tell it at alpha 0.01 (p = 0.018 with the 3 splits counted). Too few runs to tell, exit 3 and
// how many runs it needs: never "ok".
TEST(Check, ASlowdownTheRunsCannotTellYetIsTooFewRunsNotOk) {
  TempDir tmp("check-test-");
  auto r = CheckHistory(MakeHistoryOf(tmp.path(), {100, 104, 118, 96, 128, 140, 121, 135}), {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_FALSE(r->series.empty());
  for (const SeriesCheck& s : r->series) {
    EXPECT_TRUE(s.changes.empty()) << s.series.point_id;
    EXPECT_EQ(s.verdict, SeriesVerdict::kTooFewRuns) << s.series.point_id;
    ASSERT_TRUE(s.unresolved_step);
    EXPECT_EQ(s.unresolved.index, 4);
    EXPECT_EQ(s.unresolved.test, SplitTest::kStudentT);
    EXPECT_GT(s.unresolved.p, 0.01);
    EXPECT_GT(s.unresolved.runs_needed, 8);  // about 36: 4 runs before it, at this spread
    EXPECT_NEAR(s.resolution.spread, 0.13, 0.01);
  }
  EXPECT_EQ(r->ExitCode(), 3);
  const std::string text = CheckToText(*r);
  EXPECT_NE(text.find("too few runs to tell: 8 runs, needs about "), std::string::npos) << text;
  EXPECT_NE(CheckToJunit(*r).find("<skipped message=\"too few runs to tell: 8 runs"), std::string::npos);
  const json j = CheckToJson(*r);
  const SeriesCheck& s0 = r->series[0];
  EXPECT_EQ(j["series"][0]["verdict"], "too few runs");
  EXPECT_EQ(j["series"][0]["unresolved"]["index"], 4);
  EXPECT_EQ(j["series"][0]["unresolved"]["runs_needed"], s0.unresolved.runs_needed);
}

// 8 runs without a step on a quiet runner: ok, with what it could have seen said (a step of some size 3 runs
// from the end, and the runs a step of the floor's size needs after it).
TEST(Check, AQuietShortHistoryPassesAndSaysWhatItCanSee) {
  TempDir tmp("check-test-");
  auto r = CheckHistory(MakeHistory(tmp.path(), 8, 99, 0, -1, 0.01), {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  for (const SeriesCheck& s : r->series) {
    EXPECT_EQ(s.verdict, SeriesVerdict::kOk) << s.series.point_id;
    EXPECT_GT(s.resolution.detectable, 0);
    EXPECT_LT(s.resolution.detectable, 0.2);
    EXPECT_EQ(s.resolution.runs_after, 3);
    EXPECT_EQ(s.resolution.test, SplitTest::kStudentT);
    EXPECT_GE(s.resolution.floor_runs_after, 3);
  }
  EXPECT_EQ(r->ExitCode(), 0);
  EXPECT_NE(CheckToText(*r).find(" runs after a step (one run's spread "), std::string::npos) << CheckToText(*r);
  const json res = CheckToJson(*r)["series"][0]["resolution"];
  EXPECT_EQ(res["test"], "student t");
  EXPECT_TRUE(res["detectable_step"].is_number());
}

}  // namespace
}  // namespace commbench::history
