#include "lib/diagnose/diagnose.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>

#include "lib/diagnose/ab.h"
#include "lib/diagnose/analysis_input.h"
#include "lib/diagnose/rule.h"
#include "lib/diagnose/test_util.h"

namespace commbench {
namespace diagnose {
namespace {

using nlohmann::json;
using testing::BuildAnalysisInput;
using testing::Diagnose;
using testing::MakePoint;
using testing::MakeResult;
using testing::MakeSeries;
using testing::OneToEight;
using testing::PlantedBarrierOnTwoCores;
using testing::PointSpec;

TEST(Diagnose, NoisyFlatSweepSaysNoGrowthAndNothingElse) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> noise(0, 0.03);
    PointSpec base;
    base.rel_se = 0.03;
    base.saturation = 0.95;  // even a busy CPU is no finding when nothing grows
    std::vector<std::vector<json>> series;
    for (int64_t bytes : {400LL, 40000LL, 4000000LL}) {
      base.bytes = bytes;
      double level = 30 + bytes / 1e4;
      series.push_back(MakeSeries(base, OneToEight(), [&](int) { return level * (1 + noise(rng)); }));
    }
    json d = Diagnose(MakeResult(series, "commbench sweep --groups 1..8"));
    EXPECT_EQ(d["verdict"], "no growth") << "seed " << seed << ": " << d["fits"].dump();
    EXPECT_TRUE(d["findings"].empty()) << d["findings"].dump();
    ASSERT_EQ(d["fits"].size(), 3u);
    for (const json& f : d["fits"]) EXPECT_EQ(f["model"], "flat") << "seed " << seed;
  }
}

TEST(Diagnose, InsufficientData) {
  EXPECT_EQ(diagnose::Diagnose({}, "", {}).verdict, result::Verdict::kInsufficientData);
  PointSpec one;
  EXPECT_EQ(Diagnose(MakeResult({{MakePoint(one)}}, "commbench sweep"))["verdict"], "insufficient data");
}

TEST(Diagnose, FitsCarryEveryAxisButGroups) {
  PointSpec base;
  base.axes["sync"] = "group-barrier";
  json d = Diagnose(
      MakeResult({MakeSeries(base, OneToEight(), [](int g) { return g < 4 ? 50.0 : 90.0; })}, "commbench sweep"));
  ASSERT_EQ(d["fits"].size(), 1u);
  const json& f = d["fits"][0];
  for (const char* k : {"backend", "op", "algo", "dtype", "reduce", "bytes", "group_size", "sync", "ranks_per_process",
                        "pin", "cpus", "stream", "h2d", "graph"}) {
    EXPECT_TRUE(f.contains(k)) << k;
  }
  EXPECT_FALSE(f.contains("world"));
  EXPECT_EQ(f["sync"], "group-barrier");
  EXPECT_EQ(f["bytes"], 400);
  EXPECT_TRUE(f["stream"].is_null());
  EXPECT_EQ(f["groups"].size(), 8u);
  EXPECT_EQ(f["model"], "step");
  EXPECT_EQ(f["change_point"], 4);
  EXPECT_GT(f["slope_us_per_group"].get<double>(), 0);
  EXPECT_EQ(f["points"].size(), 8u);
  EXPECT_EQ(d["verdict"], "growth");
}

// A 2-core machine: every series is oversubscribed, but only the barrier has its A/B. The barrier must be ranked
// first and be the only confirmed finding; oversubscription stays suspected.
TEST(Diagnose, PlantedBarrierOnASmallMachine) {
  json d = Diagnose(PlantedBarrierOnTwoCores());
  ASSERT_GE(d["findings"].size(), 2u);
  EXPECT_EQ(d["findings"][0]["rule"], "world_barrier");
  EXPECT_EQ(d["findings"][0]["status"], "confirmed");
  for (size_t i = 1; i < d["findings"].size(); ++i) EXPECT_NE(d["findings"][i]["status"], "confirmed");
  bool cpu = false;
  for (const json& f : d["findings"]) cpu = cpu || f["rule"] == "cpu_oversubscription";
  EXPECT_TRUE(cpu);
}

TEST(Diagnose, SeriesAreSplitByEveryAxis) {
  PointSpec a, b;
  b.axes["pin"] = "compact";
  AnalysisInput in = BuildAnalysisInput(MakeResult(
      {MakeSeries(a, OneToEight(), [](int) { return 1.0; }), MakeSeries(b, OneToEight(), [](int) { return 1.0; })},
      "commbench sweep"));
  ASSERT_EQ(in.series.size(), 2u);
  EXPECT_EQ(in.Partners(0, "pin"), std::vector<int>{1});
  EXPECT_TRUE(in.Partners(0, "sync").empty());
}

TEST(Diagnose, ConfirmCommandMergesOrAppends) {
  AnalysisInput in;
  in.command = "commbench sweep --groups 1..8 --cpus=0";
  EXPECT_EQ(in.ConfirmCommand({{"cpus", {"0", "0-1"}}, {"ranks_per_process", {"1", "2"}}}),
            "commbench sweep --groups 1..8 --cpus='0;0-1' --ranks-per-process 1,2");
  // The original result is not overwritten; a CPU list with commas survives as one --cpus value.
  in.command = "commbench sweep -o res.json --cpus '0,1' --html r.html";
  EXPECT_EQ(in.ConfirmCommand({{"cpus", {"0"}}}), "commbench sweep -o res-ab.json --cpus '0,1;0' --html r-ab.html");
  in.command = "commbench sweep --warmup 5";
  EXPECT_EQ(in.ConfirmCommand({{"warmup", {"0"}}}), "commbench sweep --warmup 0");
  in.command = "";
  EXPECT_EQ(in.ConfirmCommand({{"sync", {"world-barrier", "none"}}}), "commbench sweep --sync world-barrier,none");
}

TEST(Diagnose, PointsWithoutTimesAreLeftOut) {
  PointSpec base;
  std::vector<json> pts = MakeSeries(base, OneToEight(), [](int) { return 50.0; });
  // Points without a time (no iteration finished): the summary of no samples is all zeros.
  for (json* p : {&pts.back(), &pts[3]}) {
    for (json& value : (*p)["time_us"]) value = 0;
  }
  json d = Diagnose(MakeResult({pts}, "commbench sweep"));
  EXPECT_EQ(d["verdict"], "no growth") << d.dump();
  ASSERT_EQ(d["fits"].size(), 1u);
  EXPECT_EQ(d["fits"][0]["groups"].size(), 6u);
}

// Malformed files are the reader's to refuse (lib/result), with the field named: none reaches the rules.
TEST(Diagnose, MalformedInputIsRefusedByTheReader) {
  EXPECT_FALSE(result::ReadResultFile(json::array()).ok());
  EXPECT_FALSE(result::ReadResultFile(json(5)).ok());
  json odd = MakeResult({{MakePoint(PointSpec())}}, "commbench sweep");
  odd["points"][0]["groups"] = "a";
  auto file = result::ReadResultFile(odd);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().message(), "points[0].groups: expected an integer, got a string");
}

// A wrong result says nothing about the cost: the point is left out of the series and named.
TEST(Diagnose, WrongResultsAreLeftOutAndNamed) {
  PointSpec base;
  std::vector<json> pts = MakeSeries(base, OneToEight(), [](int) { return 50.0; });
  pts.back()["correct"] = false;
  pts.back()["errors"] = {"rank 3: 2 of 100 elements wrong"};
  pts.back()["time_us"]["p50"] = 5000.0;  // a broken run's time would read as growth
  json d = Diagnose(MakeResult({pts}, "commbench sweep"));
  EXPECT_EQ(d["verdict"], "no growth") << d.dump();
  ASSERT_EQ(d["fits"].size(), 1u);
  EXPECT_EQ(d["fits"][0]["groups"].size(), 7u);
  EXPECT_EQ(d["excluded_points"], json::array({pts.back()["id"]}));
}

// Two causes whose A/B is the same pin pair (as wake-ups and placement are): a rule that finds its signature
// in series 0 and judges the pin A/Bs there.
class PinRule : public Rule {
 public:
  PinRule(std::string name, double strength) : name_(std::move(name)), strength_(strength) {}
  std::string name() const override { return name_; }
  std::string description() const override { return "test rule confirmed by pinning"; }
  AbFactor ab_factor() const override {
    AbFactor f;
    f.name = "pinning";
    f.axes = {"pin"};
    f.removes = [](const AnalysisInput&, const SeriesData&, const SeriesData& b, const std::string&) {
      return b.axes.at("pin") != "none";
    };
    return f;
  }
  std::optional<Finding> Evaluate(const AnalysisInput& in) const override {
    if (in.series.empty() || in.series[0].explained) return std::nullopt;
    Finding f;
    f.rule = name_;
    f.cause = name_ + " cause";
    f.series = 0;
    f.strength = strength_;
    f.summary = name_ + ".";
    f.evidence.push_back({"x", 1, ""});
    f.fix = "fix";
    f.ab = EvaluateAbs(in, 0, ab_factor(), name_);
    AbJudgement j = JudgeAbs(f.ab);
    f.status = j.status;
    if (j.decisive >= 0) f.cut = f.ab[static_cast<size_t>(j.decisive)].cut;
    return f;
  }

 private:
  std::string name_;
  double strength_;
};

TEST(Diagnose, OneAbConfirmsOneCause) {
  PointSpec none, compact;
  compact.axes["pin"] = "compact";
  AnalysisInput in = BuildAnalysisInput(MakeResult({MakeSeries(none, OneToEight(), [](int g) { return 40.0 + 20 * g; }),
                                                    MakeSeries(compact, OneToEight(), [](int) { return 60.0; })},
                                                   "commbench sweep --pin none,compact"));
  PinRule weak("placement", 0.4), strong("wakeup", 0.7);
  // Each alone is confirmed by the pair.
  for (const PinRule* r : {&weak, &strong}) {
    std::optional<Finding> f = r->Evaluate(in);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->status, FindingStatus::kConfirmed) << r->name();
  }
  // Together, in either order: the pair confirms the stronger signature only; the other says whose it is.
  for (const std::vector<const Rule*>& rules :
       {std::vector<const Rule*>{&weak, &strong}, std::vector<const Rule*>{&strong, &weak}}) {
    result::Diagnosis d = diagnose::Run(in, rules);
    ASSERT_EQ(d.findings.size(), 2u);
    EXPECT_EQ(d.findings[0].rule, "wakeup");
    EXPECT_EQ(d.findings[0].status, FindingStatus::kConfirmed);
    const Finding& other = d.findings[1];
    EXPECT_EQ(other.rule, "placement");
    EXPECT_EQ(other.status, FindingStatus::kSuspected);
    ASSERT_EQ(other.ab.size(), 1u);
    EXPECT_EQ(other.ab[0].supports_cause, "wakeup cause");
    EXPECT_NE(other.ab[0].note.find("one A/B confirms one cause"), std::string::npos) << other.ab[0].note;
  }
}

// At G=1 one group runs alone whether the groups take turns or not: such a pair measured one configuration twice,
// and what it differed by is the run's own point-to-point noise. Pairs at G=2, or that differ in another axis,
// are not replicates.
TEST(Diagnose, PointsMeasuredTwiceSetTheNoiseFloor) {
  auto point = [](int groups, const std::string& pin, const std::string& concurrency, double us) {
    PointSpec s;
    s.groups = groups;
    s.p50_us = us;
    s.axes["pin"] = pin;
    s.axes["concurrency"] = concurrency;
    return MakePoint(s);
  };
  json r = MakeResult({{point(1, "none", "concurrent", 100), point(2, "none", "concurrent", 130)},
                       {point(1, "none", "sequential", 110), point(2, "none", "sequential", 200)},
                       {point(1, "compact", "concurrent", 100), point(2, "compact", "concurrent", 100)},
                       {point(1, "compact", "sequential", 100)}},
                      "commbench sweep --groups 1,2 --pin none,compact --concurrency concurrent,sequential");
  AnalysisInput in = BuildAnalysisInput(r);
  EXPECT_EQ(in.noise_floor.all.pairs, 2);
  const double d = 10.0 / 105;  // the none pair's relative difference; the compact pair's is 0
  EXPECT_NEAR(in.noise_floor.all.relative_sd, std::sqrt(d * d / 4), 1e-12);
  ASSERT_EQ(in.noise_floor.by_bytes.size(), 1u);
  EXPECT_NEAR(in.noise_floor.For(400), std::sqrt(d * d / 4), 1e-12);
  for (const SeriesData& s : in.series) {
    EXPECT_NEAR(in.OptionsFor(s).relative_noise_floor, std::sqrt(d * d / 4), 1e-12);
    double mean = 0;  // the fit's noise is its points' mean noise
    for (double y : s.p50_us) mean += y / static_cast<double>(s.p50_us.size());
    EXPECT_NEAR(s.fit.noise, std::sqrt(d * d / 4) * mean, 1e-9 * mean) << s.key;
  }
  result::Diagnosis typed = testing::DiagnoseTyped(r);
  ASSERT_TRUE(typed.noise_floor);
  EXPECT_EQ(typed.noise_floor->all.pairs, 2);
  EXPECT_NEAR(typed.noise_floor->For(400), std::sqrt(d * d / 4), 1e-12);
  // Replicates that agree leave the default floor; a size without replicates takes every pair's.
  json quiet = MakeResult({{point(1, "none", "concurrent", 100)}, {point(1, "none", "sequential", 100.5)}},
                          "commbench sweep --concurrency concurrent,sequential");
  AnalysisInput q = BuildAnalysisInput(quiet);
  EXPECT_DOUBLE_EQ(q.noise_floor.For(400), ScalingOptions{}.relative_noise_floor);
  EXPECT_NEAR(in.noise_floor.For(1 << 20), std::sqrt(d * d / 4), 1e-12);
}

// --repeats ran the point several times: its means' spread is noise between runs, which the within-run standard
// error cannot see, and a point's standard error is at least that of their mean.
TEST(Diagnose, RepeatsThatDisagreeWidenAPointsNoise) {
  PointSpec s;
  s.p50_us = 115;  // rel_se 1 %: 1.15 us from the iterations
  json steady = MakePoint(s), drifting = MakePoint(s);
  steady["repeats"] = {{"n", 2}, {"p50_us", {114, 116}}, {"mean_us", {114, 116}}};
  drifting["repeats"] = {{"n", 2}, {"p50_us", {105, 125}}, {"mean_us", {105, 125}}};
  AnalysisInput in = BuildAnalysisInput(MakeResult({{steady}, {drifting}}, "commbench sweep --repeats 2"));
  ASSERT_EQ(in.points.size(), 2u);
  EXPECT_NEAR(in.points[0].se_us, 1.15, 1e-9);  // sd 1.41 / sqrt(2) = 1: below the iterations' own
  EXPECT_NEAR(in.points[1].se_us, 10, 1e-9);    // sd 14.1 / sqrt(2)
  EXPECT_EQ(in.noise_floor.all.pairs, 1);       // one configuration measured twice
}

// Control (d) of the planted-cause suite on the 2-core VM (run 9 of 30, means and standard errors as measured):
// two single-rank groups at 1 MiB, nothing planted. The unpinned loop grew from 43.75 to 54.08 us and its
// sequential partner did not, a cut of 87 % with its interval at 59-100 % from the iterations alone, and so
// contention was confirmed. But the G=1 points measured twice differ by up to 11 %: 54.58 against 48.83 us
// pinned. Against that noise the cut is not shown.
TEST(Diagnose, AConcurrencyAbWithinTheRunsOwnReplicateNoiseConfirmsNothing) {
  struct Measured {
    int groups;
    int64_t bytes;
    const char* pin;
    const char* concurrency;
    double mean_us, se_us, saturation;
  };
  const Measured run[] = {
      {1, 65536, "compact", "concurrent", 1.60, 0.009, 0.50},
      {1, 65536, "compact", "sequential", 1.59, 0.009, 0.50},
      {1, 1048576, "compact", "concurrent", 48.83, 0.442, 0.50},
      {1, 1048576, "compact", "sequential", 54.58, 0.620, 0.50},
      {1, 65536, "none", "concurrent", 1.49, 0.010, 0.50},
      {1, 65536, "none", "sequential", 1.46, 0.004, 0.50},
      {1, 1048576, "none", "concurrent", 43.75, 0.258, 0.50},
      {1, 1048576, "none", "sequential", 45.85, 0.312, 0.50},
      {2, 65536, "compact", "concurrent", 1.62, 0.012, 0.95},
      {2, 65536, "compact", "sequential", 1.53, 0.103, 0.48},
      {2, 1048576, "compact", "concurrent", 51.70, 0.696, 0.94},
      {2, 1048576, "compact", "sequential", 48.55, 0.432, 0.48},
      {2, 65536, "none", "concurrent", 1.56, 0.009, 0.99},
      {2, 65536, "none", "sequential", 1.40, 0.007, 0.49},
      {2, 1048576, "none", "concurrent", 54.08, 0.641, 0.88},
      {2, 1048576, "none", "sequential", 47.24, 0.378, 0.49},
  };
  std::vector<std::vector<json>> points;
  for (const Measured& m : run) {
    PointSpec s;
    s.groups = m.groups;
    s.group_size = 1;
    s.bytes = m.bytes;
    s.p50_us = m.mean_us;
    s.rel_se = m.se_us / m.mean_us;
    s.saturation = m.saturation;
    s.axes["pin"] = m.pin;
    s.axes["concurrency"] = m.concurrency;
    points.push_back({MakePoint(s)});
  }
  json r = MakeResult(points,
                      "commbench sweep --groups 1,2 --group-size 1 --sizes 64K,1M --pin none,compact "
                      "--concurrency concurrent,sequential --explain --time-budget 0.05",
                      /*memcpy_gbps=*/0, /*tcp_gbps=*/0);
  result::Diagnosis d = testing::DiagnoseTyped(r);
  ASSERT_TRUE(d.noise_floor);
  EXPECT_EQ(d.noise_floor->all.pairs, 4);
  EXPECT_NEAR(d.noise_floor->For(1048576), 0.0603, 0.0005);  // the 1 MiB pairs differ by 11.1 % and 4.7 %
  EXPECT_NEAR(d.noise_floor->For(65536), 0.02, 1e-12);       // 64 KiB: 0.6 % and 2.0 %, below the default
  for (const result::Finding& f : d.findings) EXPECT_NE(f.status, FindingStatus::kConfirmed) << f.summary;
}

// What plant (b) of the planted-cause suite saw in CI: --explain's --cpus 0 side of the barrier loop (three
// single-rank groups on one core) grows twice as fast as the user's loop on both cores, so oversubscription was
// confirmed there, by "all cores", with a higher score than the barrier's, and ranked first. The user's loop is
// the barrier's: its --sync none A/B removes all of its growth. Findings about the loop the user asked for rank
// first, and the --cpus pair is reported on that loop too, from --cpus 0 to all cores.
TEST(Diagnose, TheUsersOwnLoopRanksBeforeALoopExplainAdded) {
  auto barrier_loop = [](const std::string& sync, const std::string& cpus) {
    PointSpec s;
    s.axes["sync"] = sync;
    s.axes["cpus"] = cpus;
    s.group_size = 1;
    s.saturation = 0.9;
    return s;
  };
  std::vector<int> g13 = {1, 2, 3};
  auto more_preemptions = [](int g, PointSpec* p) { p->invol_ctx_per_iter = 0.2 * g; };
  json r = MakeResult(
      {MakeSeries(barrier_loop("world-barrier", ""), g13, [](int g) { return 1.0 + 50 * (g - 1); }),
       MakeSeries(barrier_loop("none", ""), g13, [](int) { return 1.0; }),
       MakeSeries(
           barrier_loop("world-barrier", "0"), g13, [](int g) { return 1.0 + 105 * (g - 1); }, more_preemptions)},
      "commbench sweep --groups 1..3 --group-size 1 --sync world-barrier --explain");
  r["explain"] = {{"first_phase_points", 3}, {"abs", json::array()}};
  json d = Diagnose(r);
  ASSERT_GE(d["findings"].size(), 2u) << d.dump(1);
  EXPECT_EQ(d["findings"][0]["rule"], "world_barrier") << d.dump(1);
  EXPECT_EQ(d["findings"][0]["status"], "confirmed") << d.dump(1);
  // Oversubscription is real too: confirmed on the user's loop by the pair --explain measured for it.
  const json& over = d["findings"][1];
  EXPECT_EQ(over["rule"], "cpu_oversubscription") << d.dump(1);
  EXPECT_EQ(over["status"], "confirmed") << d.dump(1);
  ASSERT_EQ(over["ab"].size(), 1u) << over.dump(1);
  EXPECT_EQ(over["ab"][0]["a_side"], "--cpus 0") << over.dump(1);
  EXPECT_EQ(over["ab"][0]["partner"], "all cores") << over.dump(1);
  EXPECT_NE(over["summary"].get<std::string>().find("A/B: from --cpus 0 to all cores"), std::string::npos)
      << over["summary"];
  EXPECT_EQ(over["points"][0], d["findings"][0]["points"][0]) << "not the user's loop: " << over.dump(1);
  // Without the --explain record every loop was asked for: the one-core loop is the user's too, and its
  // oversubscription (the higher score, its own cause removed by all cores) comes first.
  r.erase("explain");
  EXPECT_EQ(Diagnose(r)["findings"][0]["rule"], "cpu_oversubscription");
}

// The --explain example: oversubscription suspected at 400 B and 64 KiB; --explain ran --cpus 0 for 64 KiB, where
// one core grew less than two, ruling the cause out there. The 400 B finding (no A/B) stays suspected and the
// 64 KiB one is listed in ruled_out[] with its A/B, not dropped because another series had none.
TEST(Diagnose, ASeriesRuledOutIsListedBesideTheOneStillSuspected) {
  auto loop = [](int64_t bytes, const std::string& cpus) {
    PointSpec s;
    s.bytes = bytes;
    s.axes["cpus"] = cpus;
    s.saturation = 0.9;
    return s;
  };
  const std::vector<int> g158 = {1, 5, 8};
  json r = MakeResult({MakeSeries(loop(400, ""), OneToEight(), [](int g) { return 70.0 + 40 * (g - 1); }),
                       MakeSeries(loop(65536, ""), OneToEight(), [](int g) { return 130.0 + 120 * (g - 1); }),
                       MakeSeries(loop(65536, "0"), g158, [](int g) { return 250.0 + 45 * (g - 1); })},
                      "commbench sweep --groups 1..8 --explain");
  r["explain"] = {{"first_phase_points", 16}, {"abs", json::array()}};
  json d = Diagnose(r);
  const json* suspected = nullptr;
  for (const json& f : d["findings"]) {
    if (f["rule"] == "cpu_oversubscription") suspected = &f;
  }
  ASSERT_NE(suspected, nullptr) << d.dump(1);
  EXPECT_EQ((*suspected)["status"], "suspected");
  EXPECT_NE((*suspected)["summary"].get<std::string>().find("400 B"), std::string::npos) << (*suspected)["summary"];
  ASSERT_EQ(d["ruled_out"].size(), 1u) << d.dump(1);
  const json& out = d["ruled_out"][0];
  EXPECT_EQ(out["rule"], "cpu_oversubscription");
  EXPECT_NE(out["summary"].get<std::string>().find("65536 B"), std::string::npos) << out["summary"];
  ASSERT_EQ(out["ab"].size(), 1u) << out.dump(1);
  EXPECT_EQ(out["ab"][0]["a_side"], "--cpus 0");
  EXPECT_EQ(out["ab"][0]["outcome"], "rules out");
}

TEST(Diagnose, DeterministicOutput) {
  PointSpec base;
  base.saturation = 0.95;
  json r = MakeResult({MakeSeries(base, OneToEight(), [](int g) { return 40.0 + 20 * g; })}, "commbench sweep");
  EXPECT_EQ(Diagnose(r).dump(), Diagnose(r).dump());
}

}  // namespace
}  // namespace diagnose
}  // namespace commbench
