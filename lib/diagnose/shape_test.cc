// A series that is not a line: named by what its points do (alternating levels, one point far off, scattered), with
// the verdict "not a line" instead of "no growth"; a line, a step or plain noise stays as it was. And a level
// already slowed at G=1 by ranks outnumbering their cores is said even when nothing grows.
#include "lib/diagnose/shape.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <vector>

#include "lib/diagnose/test_util.h"

namespace commbench {
namespace diagnose {
namespace {

using nlohmann::json;
using testing::Diagnose;
using testing::MakeResult;
using testing::MakeSeries;
using testing::PointSpec;

json Series(const std::vector<double>& p50, double rel_se = 0.02, double saturation = 0.5) {
  PointSpec base;
  base.rel_se = rel_se;
  base.saturation = saturation;
  std::vector<int> g;
  for (size_t i = 0; i < p50.size(); ++i) g.push_back(static_cast<int>(i) + 1);
  return MakeResult({MakeSeries(base, g, [&p50](int n) { return p50[static_cast<size_t>(n - 1)]; })},
                    "commbench sweep --groups 1..4");
}

SeriesShape ShapeOfOnly(const json& result) {
  AnalysisInput in = testing::BuildAnalysisInput(result);
  EXPECT_EQ(in.series.size(), 1u);
  return ShapeOf(in, in.series[0]);
}

// The native series with two ranks per process the issue saw: 0.73, 6.08, 0.74, 6.74 us from G=1 to 4.
TEST(Shape, TwoLevelsTakingTurnsAreNotNoGrowth) {
  const json r = Series({0.73, 6.08, 0.74, 6.74});
  const SeriesShape s = ShapeOfOnly(r);
  EXPECT_EQ(s.shape, Shape::kAlternating);
  EXPECT_EQ(s.sentence, "its points alternate between two levels: 0.73-0.74 us at G=1,3 and 6.08-6.74 us at G=2,4");
  const json d = Diagnose(r);
  EXPECT_EQ(d["verdict"], "not a line") << d.dump(1);
  ASSERT_TRUE(d.contains("caveats")) << d.dump(1);
  EXPECT_EQ(d["caveats"][0].get<std::string>().rfind("Not a line: gloo allreduce", 0), 0u) << d.dump(1);
}

TEST(Shape, OnePointFarOff) {
  const SeriesShape s = ShapeOfOnly(Series({50, 51, 150, 50}));
  EXPECT_EQ(s.shape, Shape::kOneOff);
  EXPECT_EQ(s.sentence, "one point lies far off the others: G=3 at 150.0 us against 50.0-51.0 us at the rest");
}

// Scenario A's 1 MiB series beside a nice-19 spinner, each point about 35 % noisy: it rises at every step, which
// is a trend the noise leaves unproven, not one point far off (G=1 lies far from the median only as an end does).
TEST(Shape, ARiseAtEveryStepWithinWideNoiseIsATrendNotOnePointOff) {
  const json r = Series({1560, 3462, 4621, 6157}, 0.35);
  const SeriesShape s = ShapeOfOnly(r);
  EXPECT_EQ(s.shape, Shape::kTrend);
  EXPECT_EQ(s.sentence,
            "its points rise at every step, from 1560.0 us at G=1 to 6157.0 us at G=4, but within this run's point "
            "noise (35 % a point): rerun with --repeats 5, or on a quieter host, to tell growth");
  const json d = Diagnose(r);
  EXPECT_EQ(d["verdict"], "no growth") << d.dump(1);
  ASSERT_TRUE(d.contains("caveats")) << d.dump(1);
  bool said = false;
  for (const json& c : d["caveats"]) said = said || c.get<std::string>().rfind("A trend within the noise: ", 0) == 0;
  EXPECT_TRUE(said) << d.dump(1);
}

TEST(Shape, ScatteredBeyondTheirNoise) {
  EXPECT_EQ(ShapeOfOnly(Series({50, 200, 260, 40, 45})).shape, Shape::kScattered);
}

TEST(Shape, ALineOrNoiseWithinItsErrorsIsALine) {
  EXPECT_EQ(ShapeOfOnly(Series({50, 52, 49, 51})).shape, Shape::kLine);
  EXPECT_EQ(Diagnose(Series({50, 52, 49, 51}))["verdict"], "no growth");
  // 30 % off, within its noise of a 2-core VM: not named.
  EXPECT_EQ(ShapeOfOnly(Series({50, 65, 50, 52})).shape, Shape::kLine);
  // Far off in percent, but within four of its standard errors.
  EXPECT_EQ(ShapeOfOnly(Series({50, 100, 50, 50}, 0.3)).shape, Shape::kLine);
}

// `taskset -c 0` over a whole run: G=1 already runs its two ranks on one busy core.
TEST(Shape, ALevelSlowedFromTheStartIsNamedWhenNothingGrows) {
  PointSpec base;
  base.axes["cpus"] = "0";
  base.cores = 1;
  base.saturation = 0.98;
  const json r = MakeResult({MakeSeries(base, {1, 2, 3, 4}, [](int) { return 300.0; })}, "commbench sweep --cpus 0");
  const json d = Diagnose(r);
  ASSERT_TRUE(d.contains("caveats")) << d.dump(1);
  bool said = false;
  for (const json& c : d["caveats"]) said |= c.get<std::string>().rfind("Slowed from the start: at G=1 ", 0) == 0;
  EXPECT_TRUE(said) << d.dump(1);
  // The same level with a core per rank and idle CPUs says nothing.
  PointSpec roomy;
  roomy.cores = 2;
  roomy.saturation = 0.3;
  const json quiet = Diagnose(MakeResult({MakeSeries(roomy, {1, 2}, [](int) { return 40.0; })}, "commbench sweep"));
  EXPECT_FALSE(quiet.contains("caveats")) << quiet.dump(1);
}

// --explain's `--cpus 0` side runs two ranks on one core by design: a baseline slowed there is the A/B's, not the
// user's, and the roomy series the user asked for says nothing.
TEST(Shape, AnExplainSideOnOneCoreIsNotASlowedBaseline) {
  PointSpec roomy;
  roomy.cores = 2;
  roomy.saturation = 0.3;
  PointSpec one_core;
  one_core.axes["cpus"] = "0";
  one_core.cores = 1;
  one_core.saturation = 0.98;
  json r = MakeResult({MakeSeries(roomy, {1, 2, 3, 4}, [](int) { return 40.0; }),
                       MakeSeries(one_core, {1, 4}, [](int) { return 300.0; })},
                      "commbench sweep --groups 1..4");
  r["explain"] = {{"first_phase_points", 4}, {"abs", json::array()}};
  const json d = Diagnose(r);
  for (const json& c : d.value("caveats", json::array())) {
    EXPECT_NE(c.get<std::string>().rfind("Slowed from the start", 0), 0u) << d.dump(1);
  }
}

}  // namespace
}  // namespace diagnose
}  // namespace commbench
