#include "lib/report/console_findings.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "lib/diagnose/diagnose.h"
#include "lib/diagnose/test_util.h"

namespace commbench {
namespace {

using diagnose::testing::DiagnoseTyped;
using diagnose::testing::MakeResult;
using diagnose::testing::MakeSeries;
using diagnose::testing::OneToEight;
using diagnose::testing::PointSpec;
using nlohmann::json;

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(ConsoleFindings, ConfirmedAndSuspectedInScoreOrder) {
  result::Diagnosis d = DiagnoseTyped(diagnose::testing::PlantedBarrierOnTwoCores());
  std::string text = FormatFindings(d);
  EXPECT_TRUE(Has(text, "== Diagnosis: growth ==")) << text;
  size_t barrier_at = text.find("1. [confirmed] world-wide barrier per iteration");
  size_t cpu_at = text.find("[suspected] CPU oversubscription");
  ASSERT_NE(barrier_at, std::string::npos) << text;
  ASSERT_NE(cpu_at, std::string::npos) << text;
  EXPECT_LT(barrier_at, cpu_at);
  EXPECT_TRUE(Has(text, "Confirm with: commbench sweep --groups 1..8 --sync world-barrier,none --cpus '0;0-1'"))
      << text;
  EXPECT_TRUE(Has(text, "Fix: ")) << text;
  EXPECT_TRUE(Has(text, "- slope per added group: ")) << text;
}

TEST(ConsoleFindings, NoGrowthAndInsufficientData) {
  PointSpec base;
  std::string flat = FormatFindings(
      DiagnoseTyped(MakeResult({MakeSeries(base, OneToEight(), [](int) { return 50.0; })}, "commbench sweep")));
  EXPECT_TRUE(Has(flat, "== Diagnosis: no growth =="));
  EXPECT_TRUE(Has(flat, "(1 series fitted)")) << flat;
  EXPECT_FALSE(Has(flat, "1. ["));
  EXPECT_FALSE(Has(flat, "Outside load")) << flat;
  result::Diagnosis beside;
  beside.verdict = result::Verdict::kNoGrowth;
  beside.caveats = {"Outside load: one.", "CPU quota: two."};
  EXPECT_TRUE(Has(FormatFindings(beside), "beyond its noise.\nOutside load: one.\nCPU quota: two.\n"))
      << FormatFindings(beside);
  EXPECT_TRUE(Has(FormatFindings(result::Diagnosis{}), "Not enough group counts"));
  // A figure that could not be computed prints as n/a.
  result::Diagnosis d;
  d.verdict = result::Verdict::kGrowth;
  result::Finding f;
  f.cause = "x";
  f.evidence.push_back({"l", std::nan(""), ""});
  d.findings.push_back(f);
  const std::string text = FormatFindings(d);
  EXPECT_TRUE(Has(text, "1. [suspected] x")) << text;
  EXPECT_TRUE(Has(text, "- l: n/a")) << text;
}

// The noise floor is said where the run measured it; a run without replicate points says nothing about it.
TEST(ConsoleFindings, ThePointNoiseMeasuredInTheRunIsStated) {
  result::Diagnosis d;
  d.verdict = result::Verdict::kNoGrowth;
  d.noise_floor = result::NoiseFloor{0.02, {}, {}};
  EXPECT_FALSE(Has(FormatFindings(d), "Point noise")) << FormatFindings(d);
  d.noise_floor->all = {3, 0.043};
  d.noise_floor->by_bytes = {{65536, {1, 0.013}}, {1048576, {2, 0.061}}};
  EXPECT_TRUE(Has(FormatFindings(d),
                  "Point noise: points that measured one configuration twice differed by 1.3% at 64K (1 pair), "
                  "6.1% at 1M (2 pairs) (one point, rms); each point's noise was taken as at least its size's, "
                  "and 2%."))
      << FormatFindings(d);
}

TEST(ConsoleFindings, RuledOutCausesAreListed) {
  PointSpec b;
  b.axes["sync"] = "world-barrier";
  b.cores = 64;
  PointSpec n = b;
  n.axes["sync"] = "none";
  std::string text =
      FormatFindings(DiagnoseTyped(MakeResult({MakeSeries(b, OneToEight(), [](int g) { return 50.0 + 25 * g; }),
                                               MakeSeries(n, OneToEight(), [](int g) { return 49.0 + 25 * g; })},
                                              "commbench sweep")));
  EXPECT_TRUE(Has(text, "Ruled out by an A/B in this sweep:")) << text;
  EXPECT_TRUE(Has(text, "world-wide barrier per iteration: ")) << text;
}

TEST(ConsoleFindings, EveryAbIsPrintedWithItsInterval) {
  result::Diagnosis d = DiagnoseTyped(diagnose::testing::PlantedBarrierOnTwoCores());
  std::string text = FormatFindings(d);
  EXPECT_TRUE(Has(text, "   A/B --sync none (G=1..8): growth ")) << text;
  EXPECT_TRUE(Has(text, "% (95% interval ")) << text;
  EXPECT_TRUE(Has(text, "): supports\n")) << text;
}

}  // namespace
}  // namespace commbench
