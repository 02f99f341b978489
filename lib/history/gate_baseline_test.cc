#include "lib/history/gate_baseline.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "lib/core/temp_dir.h"
#include "lib/result/result_file.h"

namespace commbench::history {
namespace {

using nlohmann::json;

// Files `n` runs of the real sweep's file into `dir`: each point's 3 repeats its p50 with 2 % noise, times
// (1 + step) from run `at` on; `cpu` (when set) makes them another runner's.
void File(const std::string& root, const std::string& dir, int first, int n, int at, double step,
          const std::string& cpu = "") {
  std::ifstream in("reports/testdata/real_sweep_g1-4.json");
  const json real = json::parse(in);
  std::mt19937_64 rng(7 + first);
  std::normal_distribution<double> noise(0, 0.02);
  for (int i = first; i < first + n; ++i) {
    json j = real;
    j["schema_version"] = 3;
    if (!cpu.empty()) j["environment"]["cpu_model"] = cpu;
    for (json& p : j["points"]) {
      const double t = p["time_us"]["p50"].get<double>() * (i >= at ? 1 + step : 1);
      std::vector<double> r = {t * (1 + noise(rng)), t * (1 + noise(rng)), t * (1 + noise(rng))};
      p["repeats"] = {{"n", 3}, {"p50_us", r}, {"mean_us", r}};
    }
    char time[32];
    std::snprintf(time, sizeof(time), "2026-11-%02dT08:00:00Z", 1 + i);
    const std::string path = root + "/r" + std::to_string(i) + cpu + ".json";
    std::ofstream(path) << j.dump();
    ASSERT_TRUE(AddRun(dir, {path, "c" + std::to_string(i), time}).ok());
  }
}

std::string FingerprintOf(const std::string& dir) { return LoadHistory(dir)->runs.front().fingerprint; }

TEST(GateBaseline, UsesTheRunsSinceTheLastChangePoint) {
  TempDir tmp("gate-baseline-test-");
  const std::string dir = tmp.path() + "/h";
  File(tmp.path(), dir, 0, 20, 12, 0.15);
  auto b = LoadGateBaseline(dir, FingerprintOf(dir));
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(b->too_short, "");
  EXPECT_EQ(b->latest.commit, "c19");
  ASSERT_EQ(b->points.size(), b->base.points.size());
  ASSERT_FALSE(b->points.empty());
  for (size_t i = 0; i < b->points.size(); ++i) {
    const PointSegment& seg = b->points[i];
    EXPECT_TRUE(seg.after_change) << seg.point_id;
    ASSERT_EQ(seg.runs.size(), 8u) << seg.point_id;  // runs 12..19
    EXPECT_EQ(seg.runs.front().commit, "c12");
    EXPECT_EQ(seg.series_runs, 20);
    EXPECT_EQ(b->base.points[i].repeat_p50_us, seg.run_medians);  // one value per run: the segment's spread
  }
  const json record = GateRecordToJson(*b);
  EXPECT_EQ(record["schema_version"], 1);
  EXPECT_EQ(record["fingerprint"], FingerprintOf(dir));
  ASSERT_EQ(record["runs"].size(), 8u);
  EXPECT_EQ(record["runs"][0]["id"], "000012-c12");
  EXPECT_EQ(record["runs"][0]["time"], "2026-11-13T08:00:00Z");
  EXPECT_EQ(record["runs"][7]["commit"], "c19");
  EXPECT_EQ(record["points"][0]["since_change_point"]["id"], "000012-c12");
  EXPECT_EQ(record["points"][0]["runs"].size(), 8u);
}

TEST(GateBaseline, WithoutAChangeEveryRunOfThisRunnerOnly) {
  TempDir tmp("gate-baseline-test-");
  const std::string dir = tmp.path() + "/h";
  File(tmp.path(), dir, 0, 4, 99, 0);
  File(tmp.path(), dir, 4, 3, 99, 0, "Another CPU");  // another runner's runs in between: never used
  File(tmp.path(), dir, 7, 4, 99, 0);
  auto b = LoadGateBaseline(dir, FingerprintOf(dir));
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(b->too_short, "");
  const json record = GateRecordToJson(*b);
  std::vector<std::string> commits;
  for (const json& r : record["runs"]) commits.push_back(r["commit"]);
  EXPECT_EQ(commits, (std::vector<std::string>{"c0", "c1", "c2", "c3", "c7", "c8", "c9", "c10"}));
  EXPECT_TRUE(record["points"][0]["since_change_point"].is_null());
}

TEST(GateBaseline, TooFewRunsSinceTheChangeIsTooShortToSay) {
  TempDir tmp("gate-baseline-test-");
  const std::string dir = tmp.path() + "/h";
  File(tmp.path(), dir, 0, 20, 16, 0.15);  // 4 runs after the step
  auto b = LoadGateBaseline(dir, FingerprintOf(dir));
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_NE(b->too_short.find("changed at run 000016-c16"), std::string::npos) << b->too_short;
  EXPECT_NE(b->too_short.find("the 4 runs since then are too few"), std::string::npos) << b->too_short;

  const std::string short_dir = tmp.path() + "/s";
  File(tmp.path(), short_dir, 0, 3, 99, 0);
  b = LoadGateBaseline(short_dir, FingerprintOf(short_dir));
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_NE(b->too_short.find("holds 3 runs of it from this runner, the gate needs 5"), std::string::npos)
      << b->too_short;
}

TEST(GateBaseline, BadInputIsOneLineNamingTheHistory) {
  TempDir tmp("gate-baseline-test-");
  auto b = LoadGateBaseline(tmp.path() + "/none", "0123456789abcdef");
  ASSERT_EQ(b.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(b.status().message().find("/none: no such directory"), std::string::npos) << b.status().message();

  b = LoadGateBaseline(tmp.path(), "0123456789abcdef");  // a directory, no index
  ASSERT_EQ(b.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(b.status().message().find("no history.json"), std::string::npos) << b.status().message();

  std::ofstream(tmp.path() + "/history.json") << R"({"kind": "commbench history", "schema_version": 1, "runs": []})";
  b = LoadGateBaseline(tmp.path(), "0123456789abcdef");
  ASSERT_EQ(b.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(b.status().message().find("holds no run"), std::string::npos) << b.status().message();

  const std::string dir = tmp.path() + "/h";
  File(tmp.path(), dir, 0, 2, 99, 0);
  b = LoadGateBaseline(dir, "0123456789abcdef");
  ASSERT_EQ(b.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(b.status().message().find("no run of this runner (fingerprint 0123456789abcdef); it holds " +
                                      FingerprintOf(dir) + " (2 runs: "),
            std::string::npos)
      << b.status().message();
  EXPECT_EQ(b.status().message().find('\n'), std::string::npos);
}

TEST(GateBaseline, TheRecordGoesIntoAResultFileThatStillLoads) {
  TempDir tmp("gate-baseline-test-");
  const std::string dir = tmp.path() + "/h";
  File(tmp.path(), dir, 0, 6, 99, 0);
  auto b = LoadGateBaseline(dir, FingerprintOf(dir));
  ASSERT_TRUE(b.ok()) << b.status().message();
  const std::string out = tmp.path() + "/r0.json";  // a real result file
  ASSERT_TRUE(AddGateRecord(out, GateRecordToJson(*b)).ok());
  std::ifstream in(out);
  const json j = json::parse(in);
  EXPECT_EQ(j["gate_history"]["runs"].size(), 6u);
  EXPECT_TRUE(result::LoadResultFile(out).ok());  // readers ignore the key
  EXPECT_TRUE(AddRun(dir, {out, "", ""}).ok());   // and the gate's result can be filed in the history
  EXPECT_EQ(AddGateRecord(tmp.path() + "/missing.json", {}).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace commbench::history
