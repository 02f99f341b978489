// A finding's A/B records and the cut's interval: written, read back, checked, and absent in older files.
#include "lib/result/finding.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace commbench::result {
namespace {

using nlohmann::json;

Finding WithAbs() {
  Finding f;
  f.rule = "cpu_oversubscription";
  f.cause = "CPU oversubscription";
  f.status = FindingStatus::kConfirmed;
  f.strength = 0.8;
  f.summary = "s";
  f.evidence = {{"x", 1, "us"}};
  f.fix = "fix";
  f.cut = 0.62;
  f.cut_ci95 = CutInterval{0.55, 0.7};
  AbRecord r;
  r.factor = "cpus";
  r.partner = "--cpus 0-1";
  r.points = {"p1", "p2"};
  r.g_lo = 1;
  r.g_hi = 8;
  r.growth_a_us = 280;
  r.growth_b_us = 105;
  r.cut = 0.62;
  r.cut_ci95 = {0.55, 0.7};
  r.outcome = AbOutcome::kSupports;
  f.ab.push_back(r);
  r.factor = "ranks_per_process";
  r.partner = "--ranks-per-process 1";
  r.cut = 0.05;
  r.cut_ci95 = {-0.1, 0.2};
  r.outcome = AbOutcome::kRulesOut;
  r.supports_cause = "another cause";
  r.a_side = "--ranks-per-process 2";
  f.ab.push_back(r);
  return f;
}

TEST(FindingTest, AbRecordsRoundTrip) {
  json j = FindingToJson(WithAbs());
  EXPECT_EQ(j["cut_ci95"], json::array({0.55, 0.7}));
  EXPECT_EQ(j["ab"][1]["outcome"], "rules out");
  EXPECT_EQ(j["ab"][1]["supports_cause"], "another cause");
  EXPECT_FALSE(j["ab"][0].contains("supports_cause"));
  EXPECT_FALSE(j["ab"][0].contains("a_side"));  // A is the finding's own series
  EXPECT_EQ(j["ab"][1]["a_side"], "--ranks-per-process 2");
  auto back = ReadFinding(j);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(FindingToJson(*back), j);
  ASSERT_TRUE(back->cut_ci95);
  EXPECT_EQ(back->cut_ci95->lo, 0.55);
  EXPECT_EQ(back->ab[0].partner, "--cpus 0-1");
  EXPECT_EQ(back->ab[1].outcome, AbOutcome::kRulesOut);
  EXPECT_EQ(back->ab[1].a_side, "--ranks-per-process 2");
}

TEST(FindingTest, OlderFindingsWithoutAbsStillLoad) {
  json j = FindingToJson(WithAbs());
  j.erase("ab");
  j.erase("cut_ci95");
  auto back = ReadFinding(j);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_FALSE(back->cut_ci95);
  EXPECT_TRUE(back->ab.empty());
  EXPECT_EQ(back->cut, 0.62);
}

TEST(FindingTest, ABadIntervalOrOutcomeIsNamed) {
  json j = FindingToJson(WithAbs());
  j["cut_ci95"] = json::array({0.7, 0.5});
  EXPECT_EQ(ReadFinding(j).status().message(), "finding.cut_ci95: expected [low, high] with low <= high");
  j = FindingToJson(WithAbs());
  j["ab"][0]["outcome"] = "maybe";
  EXPECT_NE(ReadFinding(j).status().message().find("finding.ab[0].outcome"), std::string::npos)
      << ReadFinding(j).status().message();
  j = FindingToJson(WithAbs());
  j["ab"][1].erase("cut");
  EXPECT_NE(ReadFinding(j).status().message().find("finding.ab[1].cut"), std::string::npos);
}

}  // namespace
}  // namespace commbench::result
