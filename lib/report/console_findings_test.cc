#include "lib/report/console_findings.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "lib/diagnose/diagnose.h"
#include "lib/diagnose/test_util.h"

namespace commbench {
namespace {

using diagnose::testing::MakeResult;
using diagnose::testing::MakeSeries;
using diagnose::testing::OneToEight;
using diagnose::testing::PointSpec;
using nlohmann::json;

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(ConsoleFindings, ConfirmedAndSuspectedInScoreOrder) {
  json d = diagnose::Diagnose(diagnose::testing::PlantedBarrierOnTwoCores());
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
      diagnose::Diagnose(MakeResult({MakeSeries(base, OneToEight(), [](int) { return 50.0; })}, "commbench sweep")));
  EXPECT_TRUE(Has(flat, "== Diagnosis: no growth =="));
  EXPECT_TRUE(Has(flat, "(1 series fitted)")) << flat;
  EXPECT_FALSE(Has(flat, "1. ["));
  EXPECT_TRUE(Has(FormatFindings(diagnose::Diagnose(json::object())), "Not enough group counts"));
  EXPECT_TRUE(Has(FormatFindings(json::object()), "not diagnosed"));
  // Hand-edited or foreign files: odd shapes print what they can and never throw.
  json odd = {{"verdict", "growth"},
              {"findings", {1, {{"cause", "x"}, {"evidence", {2, {{"label", "l"}}}}}}},
              {"ruled_out", {"y"}}};
  std::string text;
  ASSERT_NO_THROW(text = FormatFindings(odd));
  EXPECT_TRUE(Has(text, "1. [] x")) << text;
  EXPECT_TRUE(Has(text, "- l: n/a")) << text;
}

TEST(ConsoleFindings, RuledOutCausesAreListed) {
  PointSpec b;
  b.axes["sync"] = "world-barrier";
  b.cores = 64;
  PointSpec n = b;
  n.axes["sync"] = "none";
  std::string text =
      FormatFindings(diagnose::Diagnose(MakeResult({MakeSeries(b, OneToEight(), [](int g) { return 50.0 + 25 * g; }),
                                                    MakeSeries(n, OneToEight(), [](int g) { return 49.0 + 25 * g; })},
                                                   "commbench sweep")));
  EXPECT_TRUE(Has(text, "Ruled out by an A/B in this sweep:")) << text;
  EXPECT_TRUE(Has(text, "world-wide barrier per iteration: ")) << text;
}

}  // namespace
}  // namespace commbench
