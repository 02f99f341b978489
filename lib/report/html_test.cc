#include "lib/report/html.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace commbench::report {
namespace {

using nlohmann::json;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Runfile(const std::string& path) { return std::string(std::getenv("TEST_SRCDIR")) + "/commbench/" + path; }

// The page's data element: what the report JS parses.
std::string EmbeddedText(const std::string& html) {
  const std::string open = "<script id=\"commbench-result\" type=\"application/json\">";
  const size_t start = html.find(open);
  if (start == std::string::npos) return "";
  const size_t end = html.find("</script>", start + open.size());
  return html.substr(start + open.size(), end - start - open.size());
}

json Minimal() { return json{{"schema_version", 1}, {"points", json::array()}}; }

TEST(EmbeddedResultTest, MatchesGolden) {
  // Golden: what the page embeds for a real sweep's result (samples dropped, everything else unchanged).
  const json fixture = json::parse(ReadFile(Runfile("reports/testdata/real_sweep_g1-4.json")));
  const json golden = json::parse(ReadFile(Runfile("lib/report/testdata/embedded_golden.json")));
  StatusOr<std::string> html = RenderHtml(fixture);
  ASSERT_TRUE(html.ok()) << html.status().message();
  const json embedded = json::parse(EmbeddedText(*html));
  EXPECT_EQ(embedded, golden) << "regenerate lib/report/testdata/embedded_golden.json if the change is intended:\n"
                              << embedded.dump(1);
}

TEST(EmbeddedResultTest, DropsOnlySamples) {
  json result = Minimal();
  result["points"].push_back({{"id", "a"}, {"samples_us", {{"cap", 2}, {"per_rank", {{1.0, 2.0}}}}}});
  result["points"].push_back({{"id", "b"}, {"time_us", {{"p50", 3.5}}}});
  StatusOr<json> embedded = EmbeddedResult(result);
  ASSERT_TRUE(embedded.ok());
  EXPECT_FALSE((*embedded)["points"][0].contains("samples_us"));
  EXPECT_EQ((*embedded)["points"][1]["time_us"]["p50"], 3.5);
  EXPECT_EQ((*embedded)["report"]["omitted"], json::array({"points[].samples_us"}));
  // Nothing to drop: the page embeds the result unchanged.
  EXPECT_EQ(*EmbeddedResult(Minimal()), Minimal());
}

TEST(EmbeddedResultTest, SlimsLargeSweepsUnderTheBudget) {
  json result = Minimal();
  const json rank = {{"rank", 0},
                     {"time_us",
                      {{"min", 1.0 / 3},
                       {"p50", 2.0 / 3},
                       {"p95", 1.0},
                       {"p99", 4.0 / 3},
                       {"max", 5.0 / 3},
                       {"mean", 0.7},
                       {"stddev", 0.1},
                       {"n", 1024}}}};
  json point = {{"id", "p"}, {"time_us", {{"p50", 100.0 / 3}}}, {"per_rank", json::array()}};
  for (int r = 0; r < 16; ++r) point["per_rank"].push_back(rank);
  while (result.dump().size() <= kEmbedBudgetBytes) result["points"].push_back(point);
  StatusOr<json> embedded = EmbeddedResult(result);
  ASSERT_TRUE(embedded.ok());
  EXPECT_LT(embedded->dump().size(), kEmbedBudgetBytes * 3 / 4);
  const json& first = (*embedded)["points"][0];
  EXPECT_EQ(first["per_rank"][0]["time_us"], json({{"p50", 0.666667}, {"p99", 1.33333}, {"mean", 0.7}}));
  EXPECT_EQ(first["time_us"]["p50"], 33.3333);
  EXPECT_EQ((*embedded)["points"].size(), result["points"].size());  // no point is ever dropped
  EXPECT_NE((*embedded)["report"]["note"].get<std::string>().find("results file has them in full"), std::string::npos);
}

TEST(EmbeddedResultTest, RejectsWhatThePageCannotDraw) {
  EXPECT_EQ(EmbeddedResult(json::array()).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(EmbeddedResult(json{{"points", json::array()}}).status().code(), StatusCode::kInvalidArgument);
  const Status v2 = EmbeddedResult(json{{"schema_version", 5}, {"points", json::array()}}).status();
  EXPECT_EQ(v2.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(v2.message().find("unsupported schema_version 5"), std::string::npos) << v2.message();
  EXPECT_FALSE(EmbeddedResult(json{{"schema_version", "1"}, {"points", json::array()}}).ok());
  EXPECT_FALSE(EmbeddedResult(json{{"schema_version", 1}, {"points", json::object()}}).ok());
  EXPECT_FALSE(EmbeddedResult(json{{"schema_version", 1}, {"points", {1, 2}}}).ok());
}

TEST(JsonForScriptTest, NothingCanCloseOrConfuseTheScriptElement) {
  const json value = {{"s", "</script><script>alert(1)</script> <!-- a & b > c \u2028\u2029"}};
  const std::string text = JsonForScript(value);
  EXPECT_EQ(text.find('<'), std::string::npos) << text;
  EXPECT_EQ(text.find('>'), std::string::npos) << text;
  EXPECT_EQ(text.find('&'), std::string::npos) << text;
  EXPECT_EQ(text.find("\xE2\x80\xA8"), std::string::npos);
  EXPECT_NE(text.find("\\u003c/script\\u003e"), std::string::npos) << text;
  EXPECT_NE(text.find("\\u2028\\u2029"), std::string::npos) << text;
  EXPECT_EQ(json::parse(text), value);  // still the same data
}

TEST(JsonForScriptTest, InvalidUtf8BecomesReplacementCharacter) {
  const json value = {{"s", std::string("ok\xFF")}};
  EXPECT_EQ(json::parse(JsonForScript(value))["s"], "ok\xEF\xBF\xBD");
}

TEST(RenderHtmlTest, SelfContained) {
  json result = Minimal();
  result["command"] = "commbench sweep --note '</script>'";
  StatusOr<std::string> html = RenderHtml(result);
  ASSERT_TRUE(html.ok()) << html.status().message();
  EXPECT_EQ(html->rfind("<!doctype html>", 0), 0u);
  EXPECT_EQ(html->find("@@"), std::string::npos) << "a template slot was left unfilled";
  // Offline: no external script, stylesheet or image, and a policy that forbids fetching anyway.
  EXPECT_EQ(html->find("<script src"), std::string::npos);
  EXPECT_EQ(html->find("<link"), std::string::npos);
  EXPECT_NE(html->find("default-src 'none'"), std::string::npos);
  // The chart library and the page logic are inlined.
  EXPECT_NE(html->find("vegaEmbed"), std::string::npos);
  EXPECT_NE(html->find("commbenchReport"), std::string::npos);
  EXPECT_NE(html->find("commbenchAcceptance"), std::string::npos);
  EXPECT_NE(html->find("commbenchKit"), std::string::npos);
  // Exactly the template's script elements close: none inside the data or the libraries.
  size_t closes = 0;
  for (size_t at = html->find("</script"); at != std::string::npos; at = html->find("</script", at + 1)) ++closes;
  EXPECT_EQ(closes, 8u);  // data, three Vega libraries, page kit, acceptance, traffic, report
  EXPECT_EQ(json::parse(EmbeddedText(*html)), result);
  EXPECT_LT(html->size(), 1200u * 1000u) << "the libraries alone should stay near 0.85 MB";
}

TEST(WriteHtmlReportTest, WritesAtomicallyAndLeavesNothingOnError) {
  const std::string dir = std::getenv("TEST_TMPDIR");
  const std::string path = dir + "/report.html";
  ASSERT_TRUE(WriteHtmlReport(Minimal(), path).ok());
  EXPECT_EQ(ReadFile(path), *RenderHtml(Minimal()));
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);

  const std::string bad = dir + "/bad.html";
  const Status status = WriteHtmlReport(json{{"schema_version", 9}}, bad);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(access(bad.c_str(), F_OK), 0);
  EXPECT_FALSE(WriteHtmlReport(Minimal(), dir + "/no/such/dir/report.html").ok());
}

}  // namespace
}  // namespace commbench::report
