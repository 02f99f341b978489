#include "lib/accept/outputs.h"

#include <gtest/gtest.h>

#include <cmath>
#include <regex>

namespace commbench::accept {
namespace {

size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

AcceptanceReport Sample() {
  AcceptanceReport r;
  Check pre;
  pre.name = "preflight ranks";
  pre.host = "10.77.0.1";
  pre.passed = true;
  pre.measured = 2;
  pre.limit = 2;
  pre.unit = "ranks";
  pre.reason = "10.77.0.1: 2 rank(s) joined";
  pre.preflight = true;
  Check floor;
  floor.name = "pairs allreduce 4M busbw floor";
  floor.passed = false;
  floor.measured = 0.25;
  floor.limit = 0.5;
  floor.unit = "GB/s";
  floor.kind = ReasonKind::kThreshold;
  floor.reason = "1 of 28 pairs below the floor 0.5 GB/s (declared): 10.77.0.2-10.77.0.4 0.25 GB/s (50% of it) <&>";
  Check missing;
  missing.name = "pairs phase";
  missing.passed = false;
  missing.measured = std::nan("");
  missing.limit = std::nan("");
  missing.reason = "pairs phase did not run (time budget spent)";
  r.checks = {pre, floor, missing};
  HostVerdict a{"10.77.0.1", true, 6, 7, 7, 3.9, 1.0, {}, {}};
  HostVerdict b{"10.77.0.4",
                false,
                6,
                7,
                0,
                3.8,
                0.25,
                {"pairs allreduce 4M pair score: failed with 7 of 7"},
                {ReasonKind::kOutlier, ReasonKind::kStraggler}};
  r.hosts = {a, b};
  AcceptanceSuspect s;
  s.what = SuspectWhat::kRank;
  s.host = "10.77.0.4";
  s.rank = 7;
  s.score = 0.75;
  s.evidence = {"rank 7 on 10.77.0.4: its median time was 4x its group peers'", "arrival skew: | pipe"};
  r.suspects = {s};
  PairMatrix m;
  m.bytes = 4 << 20;
  m.hosts = {"10.77.0.1", "10.77.0.4"};
  m.gbps = {{std::nan(""), 0.25}, {0.25, std::nan("")}};
  m.rounds = {{0, 2}, {2, 0}};
  m.rounds_passed = {{0, 0}, {0, 0}};
  m.typical_gbps = 1;
  m.threshold_gbps = 0.5;
  r.pair_matrices = {m};
  BisectionTable t;
  t.bytes = 4 << 20;
  t.hosts = {"10.77.0.1", "10.77.0.2", "10.77.0.3", "10.77.0.4"};
  LevelVerdict level;
  level.level = 2;
  level.block_hosts = 2;
  level.finest = true;
  level.typical_gbps = 1;
  level.threshold_gbps = 0.7;
  level.blocks = {{{1, 2}, 0.9, false}, {{3, 0}, 0.25, true}};
  t.levels = {level};
  r.bisections = {t};
  r.notes = {"pairs phase did not run"};
  r.passed = false;
  return r;
}

TEST(AcceptOutputsTest, JunitTestcasePerCheckAndHostFailuresCarryFigures) {
  std::string x = AcceptanceToJunit(Sample());
  EXPECT_NE(x.find("<testsuite name=\"commbench.accept\" tests=\"5\" failures=\"3\">"), std::string::npos) << x;
  EXPECT_EQ(Count(x, "<testcase "), 5u);
  EXPECT_EQ(Count(x, "</testcase>"), 5u);
  EXPECT_EQ(Count(x, "<failure "), 3u);
  EXPECT_EQ(Count(x, "</failure>"), 3u);
  EXPECT_NE(x.find("name=\"pairs allreduce 4M busbw floor\"><failure type=\"threshold\" message=\"measured 0.25 GB/s, "
                   "limit 0.5 GB/s\">"),
            std::string::npos)
      << x;
  EXPECT_NE(x.find("(50% of it) &lt;&amp;&gt;</failure>"), std::string::npos) << x;
  EXPECT_NE(x.find("classname=\"commbench.accept.preflight\" name=\"preflight ranks [10.77.0.1]\"></testcase>"),
            std::string::npos)
      << x;
  EXPECT_NE(x.find("classname=\"commbench.accept.host\" name=\"10.77.0.4\"><failure type=\"outlier,straggler\""),
            std::string::npos)
      << x;
  // Well-formed enough for CI parsers: no raw '<' or '&' inside any attribute or text.
  std::string stripped = std::regex_replace(x, std::regex("<[^<>]*>"), "");
  stripped = std::regex_replace(stripped, std::regex("&(amp|lt|gt|quot|apos|#9|#10|#13);"), "");
  EXPECT_EQ(stripped.find_first_of("<>&"), std::string::npos) << stripped;
}

TEST(AcceptOutputsTest, JsonBlock) {
  Profile p;
  p.path = "configs/acceptance/virtual-cluster.yaml";
  p.name = "virtual-cluster";
  p.phases = {Phase::kCluster, Phase::kPairs};
  nlohmann::json j = AcceptanceToJson(Sample(), p);
  EXPECT_EQ(j["verdict"], "fail");
  EXPECT_EQ(j["exit_code"], 1);
  EXPECT_EQ(j["phases"], nlohmann::json::array({"cluster", "pairs"}));
  ASSERT_EQ(j["checks"].size(), 3u);
  EXPECT_TRUE(j["checks"][2]["measured"].is_null());
  EXPECT_EQ(j["suspects"][0]["kind"], "rank");
  EXPECT_EQ(j["suspects"][0]["host"], "10.77.0.4");
  EXPECT_EQ(j["suspects"][0]["rank"], 7);
  EXPECT_FALSE(j["suspects"][0].contains("peer"));
  EXPECT_TRUE(j["pair_matrices"][0]["busbw_gbps"][0][0].is_null());
  EXPECT_EQ(j["pair_matrices"][0]["busbw_gbps"][0][1], 0.25);
  EXPECT_EQ(j["pair_matrices"][0]["rounds"][1][0], 2);
  EXPECT_EQ(j["pair_matrices"][0]["rounds_passed"][1][0], 0);
  EXPECT_TRUE(j["pair_matrices"][0]["floor_gbps"].is_null()) << "no pairs floor: null, not 0";
  EXPECT_EQ(j["pair_matrices"][0]["floor"], "");
  EXPECT_EQ(j["hosts"][1]["verdict"], "fail");
  EXPECT_EQ(j["hosts"][1]["reason_kinds"], nlohmann::json::array({"outlier", "straggler"}));
  EXPECT_EQ(j["hosts"][0]["reason_kinds"], nlohmann::json::array());
  EXPECT_EQ(j["checks"][1]["kind"], "threshold");
  EXPECT_EQ(j["suspects"][0]["reason"], "outlier");
  const nlohmann::json& level = j["bisections"][0]["levels"][0];
  EXPECT_EQ(level["phase"], "bisect-2");
  EXPECT_EQ(level["blocks"][1]["hosts"], nlohmann::json::array({"10.77.0.4", "10.77.0.1"}));
  EXPECT_EQ(level["blocks"][1]["failed"], true);
  EXPECT_EQ(level["idle"], nlohmann::json::array());
}

TEST(AcceptOutputsTest, MarkdownVerdictSuspectsFailedChecks) {
  std::string m = AcceptanceToMarkdown(Sample());
  EXPECT_EQ(m.rfind("### commbench accept: fail\n", 0), 0u) << m;
  EXPECT_NE(m.find("1 of 3 checks passed; 1 of 2 hosts passed."), std::string::npos) << m;
  EXPECT_NE(m.find("| 1 | rank 7 on 10.77.0.4 | 0.75 | rank 7 on 10.77.0.4: its median"), std::string::npos) << m;
  EXPECT_NE(m.find("arrival skew: \\| pipe"), std::string::npos) << m;
  EXPECT_NE(m.find("| pairs allreduce 4M busbw floor | threshold |  | 0.25 GB/s | 0.5 |"), std::string::npos) << m;
  EXPECT_NE(m.find("| 10.77.0.4 | fail | outlier,straggler |"), std::string::npos) << m;
  EXPECT_EQ(m.find("preflight ranks"), std::string::npos) << "passed checks stay out of the summary";
  EXPECT_NE(m.find("**Bisection**, allreduce 4M:"), std::string::npos) << m;
  EXPECT_NE(m.find("| 2 | 2 | 1 | 0.7 | 10.77.0.4 + 10.77.0.1 (0.25 GB/s) |"), std::string::npos) << m;
  AcceptanceReport ok;
  ok.passed = true;
  EXPECT_EQ(AcceptanceToMarkdown(ok).rfind("### commbench accept: pass\n", 0), 0u);
}

TEST(AcceptOutputsTest, HostLinesOnePerHostWithKinds) {
  EXPECT_EQ(AcceptanceHostLines(Sample()), "10.77.0.1 pass -\n10.77.0.4 fail outlier,straggler\n");
}

// Names and reasons come from profiles and hosts: none of their HTML reaches the page that renders the summary.
TEST(AcceptOutputsTest, MarkdownEscapesHtmlFromProfilesAndHosts) {
  AcceptanceReport r = Sample();
  r.checks[1].name = "<script>alert(1)</script> floor";
  r.checks[1].reason = "source: <img src=x onerror=alert(2)> `code`";
  r.hosts[1].host = "<b>host</b>";
  r.suspects[0].evidence = {"<iframe>"};
  r.notes = {"<script>note</script>"};
  const std::string m = AcceptanceToMarkdown(r);
  for (const char* raw : {"<script", "<img", "<b>", "<iframe", "`code`"}) {
    EXPECT_EQ(m.find(raw), std::string::npos) << raw << " in\n" << m;
  }
  EXPECT_NE(m.find("| &lt;script&gt;alert(1)&lt;/script&gt; floor |"), std::string::npos) << m;
  EXPECT_NE(m.find("- &lt;script&gt;note&lt;/script&gt;"), std::string::npos) << m;
}

}  // namespace
}  // namespace commbench::accept
