#include "lib/gate/outputs.h"

#include <gtest/gtest.h>

namespace commbench::gate {
namespace {

Comparison Sample() {
  Comparison c;
  PointComparison slow;
  slow.id = "gloo/allreduce/400B/G2";
  slow.point.backend = "gloo";
  slow.point.groups = 2;
  slow.point.bytes = 400;
  slow.base_us = {100, 101, 99, 100, 100, 102};
  slow.now_us = {120, 119, 121, 120, 122, 118};
  DecisionOptions floor;
  floor.min_effect = 0.1;  // as c.options says below: each point's min_effect is the floor it was judged at
  slow.decision = Decide(slow.base_us, slow.now_us, floor);
  PointComparison gone;
  gone.id = "gloo/allreduce/64K/G2";
  gone.base_us = {5, 5, 5};
  gone.problem = "only in the baseline";
  c.points = {slow, gone};
  c.environment = {{"variables.NCCL_ALGO", "", "Tree"}, {"variables.GLOO_ALGO", "a", "b"}};
  c.options.varied_variables = {"GLOO_ALGO"};
  c.options.decision.min_effect = 0.1;
  c.outcome = Outcome::kRegression;
  return c;
}

TEST(OutputsTest, JunitCarriesBothMediansRatioAndInterval) {
  std::string x = ComparisonToJunit(Sample());
  EXPECT_NE(x.find("tests=\"2\" failures=\"1\" skipped=\"1\""), std::string::npos) << x;
  EXPECT_NE(
      x.find("<testcase classname=\"commbench.compare\" name=\"gloo/allreduce/400B/G2\"><failure message=\"slower: "
             "base 100.00 us (6 repeats), new 120.00 us (6 repeats), ratio 1.200 ["),
      std::string::npos)
      << x;
  EXPECT_NE(x.find("<skipped message=\"inconclusive: only in the baseline\"/>"), std::string::npos) << x;
}

TEST(OutputsTest, JsonAndMarkdown) {
  nlohmann::json j = ComparisonToJson(Sample(), "base.json", "new.json");
  EXPECT_EQ(j["outcome"], "regression");
  EXPECT_EQ(j["exit_code"], 1);
  EXPECT_EQ(j["points"][0]["verdict"], "slower");
  EXPECT_EQ(j["points"][1]["verdict"], "inconclusive");
  EXPECT_EQ(j["points"][1]["ratio"], nullptr);
  EXPECT_EQ(j["environment_differences"][0]["new"], "Tree");
  EXPECT_EQ(j["environment_differences"][0]["varied"], false);
  EXPECT_EQ(j["environment_differences"][1]["varied"], true);
  EXPECT_EQ(j["options"], nlohmann::json({{"min_effect", 0.1},
                                          {"alpha", 0.01},
                                          {"allow_env_drift", false},
                                          {"min_effect_below", nlohmann::json::array()}}));
  EXPECT_EQ(j["points"][0]["min_effect"], 0.1);
  // What the HTML page draws: the axes of each point (as the result file writes them, without the id) and both
  // medians; a side without repeats has none, and a point judged by its problem has no test figures.
  EXPECT_EQ(j["points"][0]["axes"]["backend"], "gloo");
  EXPECT_EQ(j["points"][0]["axes"]["bytes"], 400);
  EXPECT_EQ(j["points"][0]["axes"]["groups"], 2);
  EXPECT_EQ(j["points"][0]["axes"]["op"], "allreduce");
  EXPECT_FALSE(j["points"][0]["axes"].contains("id"));
  EXPECT_EQ(j["points"][0]["base_median_us"], 100);
  EXPECT_EQ(j["points"][0]["new_median_us"], 120);
  EXPECT_TRUE(j["points"][0]["detectable"].is_number());
  EXPECT_EQ(j["points"][1]["base_median_us"], 5);
  EXPECT_EQ(j["points"][1]["new_median_us"], nullptr);
  EXPECT_EQ(j["points"][1]["detectable"], nullptr);
  EXPECT_EQ(j["points"][1]["reason"], "only in the baseline");
  std::string m = ComparisonToMarkdown(Sample());
  EXPECT_NE(m.find("### commbench compare: regression"), std::string::npos) << m;
  EXPECT_NE(m.find("| gloo/allreduce/400B/G2 | slower | 100.00 | 120.00 | 1.200 ["), std::string::npos) << m;
  EXPECT_NE(m.find("| variables.NCCL\\_ALGO |  | Tree |"), std::string::npos) << m;
  std::string t = ComparisonToText(Sample());
  EXPECT_NE(t.find("outcome: regression (exit 1)"), std::string::npos) << t;
}

}  // namespace
}  // namespace commbench::gate
