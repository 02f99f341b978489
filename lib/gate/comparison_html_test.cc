#include "lib/gate/comparison_html.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "lib/gate/calibration.h"
#include "lib/gate/outputs.h"

namespace commbench::gate {
namespace {

using nlohmann::json;

// Strings from files that a page must show as text, never as markup or script.
constexpr const char* kHostileId = "gloo/</script><img src=x onerror=alert(1)>/400B";
constexpr const char* kHostileEnv = "<b>bold</b> & <!-- comment \xE2\x80\xA8 <script>alert(2)</script>";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The page's data element: what comparison.js parses.
std::string EmbeddedText(const std::string& html) {
  const std::string open = "<script id=\"commbench-comparison\" type=\"application/json\">";
  const size_t start = html.find(open);
  if (start == std::string::npos) return "";
  const size_t end = html.find("</script>", start + open.size());
  return html.substr(start + open.size(), end - start - open.size());
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

gate::Comparison Hostile() {
  gate::Comparison c;
  gate::PointComparison p;
  p.id = kHostileId;
  p.point.backend = "gloo";
  p.point.bytes = 400;
  p.base_us = {100, 101, 99, 100, 100, 102};
  p.now_us = {120, 119, 121, 120, 122, 118};
  p.decision = gate::Decide(p.base_us, p.now_us);
  c.points = {p};
  c.environment = {{"variables.NCCL_ALGO", "Ring", kHostileEnv}};
  c.problems = {"the new result ended early: </script>"};
  c.outcome = gate::Outcome::kIncomparable;
  return c;
}

TEST(ComparisonHtmlTest, SelfContainedAndTheDataParsesBack) {
  const gate::Comparison c = Hostile();
  StatusOr<std::string> html = RenderComparisonHtml(c, "base.json", "new <i>.json");
  ASSERT_TRUE(html.ok()) << html.status().message();
  EXPECT_EQ(html->rfind("<!doctype html>", 0), 0u);
  EXPECT_EQ(html->find("@@"), std::string::npos) << "a template slot was left unfilled";
  // Offline: no external script, stylesheet or image, and a policy that forbids fetching anyway.
  EXPECT_EQ(html->find("<script src"), std::string::npos);
  EXPECT_EQ(html->find("<link"), std::string::npos);
  EXPECT_NE(html->find("default-src 'none'"), std::string::npos);
  // The chart library, the shared stylesheet and the page's own logic are inlined.
  EXPECT_NE(html->find("vegaEmbed"), std::string::npos);
  EXPECT_NE(html->find("commbenchComparison"), std::string::npos);
  EXPECT_NE(html->find(".outcome-box"), std::string::npos);
  EXPECT_NE(html->find("table.env"), std::string::npos);  // report.css
  // The embedded data is exactly what --json writes.
  EXPECT_EQ(json::parse(EmbeddedText(*html)), gate::ComparisonToJson(c, "base.json", "new <i>.json"));
  EXPECT_LT(html->size(), 1200u * 1000u) << "the libraries alone should stay near 0.85 MB";
}

TEST(ComparisonHtmlTest, StringsFromFilesCannotCloseOrChangeTheScriptElement) {
  StatusOr<std::string> html = RenderComparisonHtml(Hostile(), "base.json", "new <i>.json");
  ASSERT_TRUE(html.ok()) << html.status().message();
  // Exactly the template's six script elements close: none inside the data.
  EXPECT_EQ(Count(*html, "</script"), 6u);
  const std::string data = EmbeddedText(*html);
  for (const char* raw : {"<img", "<b>", "<!--", "</script", "<i>", "&", "\xE2\x80\xA8"}) {
    EXPECT_EQ(data.find(raw), std::string::npos) << raw << " reached the page raw: " << data;
  }
  EXPECT_NE(data.find("\\u003cimg src=x onerror=alert(1)\\u003e"), std::string::npos) << data;
  const json parsed = json::parse(data);
  EXPECT_EQ(parsed["points"][0]["id"], kHostileId);
  EXPECT_EQ(parsed["environment_differences"][0]["new"], kHostileEnv);
  EXPECT_EQ(parsed["new"], "new <i>.json");
}

TEST(ComparisonHtmlTest, WritesAtomicallyOnlyOverARegularFile) {
  const std::string dir = std::getenv("TEST_TMPDIR");
  const std::string path = dir + "/comparison.html";
  ASSERT_TRUE(WriteComparisonHtml(Hostile(), "a", "b", path).ok());
  EXPECT_EQ(ReadFile(path), *RenderComparisonHtml(Hostile(), "a", "b"));
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
  // Written again over the old page: replaced whole.
  ASSERT_TRUE(WriteComparisonHtml(gate::Comparison{}, "a", "b", path).ok());
  EXPECT_EQ(ReadFile(path), *RenderComparisonHtml(gate::Comparison{}, "a", "b"));

  const std::string subdir = dir + "/a-directory";
  ASSERT_EQ(mkdir(subdir.c_str(), 0755), 0);
  EXPECT_EQ(WriteComparisonHtml(Hostile(), "a", "b", subdir).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(WriteComparisonHtml(Hostile(), "a", "b", "/dev/null").code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(WriteComparisonHtml(Hostile(), "a", "b", dir + "/no/such/dir/c.html").ok());
  // Nothing but the page and the directory is left (no temporary file).
  std::set<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) names.insert(entry.path().filename());
  EXPECT_EQ(names, (std::set<std::string>{"a-directory", "comparison.html"}));
}

TEST(ComparisonHtmlTest, ASequentialGateShowsItsRoundsAndDisturbedRepeats) {
  gate::Comparison c = Hostile();
  gate::SequentialPoint s;
  s.looks = 3;
  s.boundary_p = 0.004;
  s.disturbed = 4;
  s.replaced = 3;
  s.disturbances = {"B repeat 2: outside processes took 40% of the ranks' CPUs (the largest: <cc1plus>, pid 7)"};
  s.repeats = {
      {"A", 2, false, false, 0, 0, ""},
      {"B", 2, true, true, 0.4, 0, "outside processes took 40% of the ranks' CPUs (the largest: <cc1plus>, pid 7)"},
      {"B", 2, true, false, 0, 0.3, "the ranks waited for a CPU 30% of an operation's time", 6}};
  c.points[0].sequential = s;
  gate::SequentialRun run;
  run.rounds = 12;
  run.budget_s = 240;
  run.stopped_because = "every point decided";
  c.options.sequential_run = run;
  StatusOr<std::string> html = RenderComparisonHtml(c, "a", "b");
  ASSERT_TRUE(html.ok());
  const size_t section = html->find("<section id=\"sequential\"");
  ASSERT_NE(section, std::string::npos);
  EXPECT_LT(section, html->find("</main>"));
  EXPECT_NE(html->find("12 rounds in 0 s (budget 240 s"), std::string::npos);
  EXPECT_NE(html->find("<td>4</td><td>3</td>"), std::string::npos);  // disturbed, re-run
  EXPECT_NE(html->find("&lt;cc1plus&gt;"), std::string::npos);       // named, as text
  EXPECT_EQ(html->find("<cc1plus>"), std::string::npos);
  EXPECT_EQ(html->find(kHostileId), std::string::npos);  // the hostile id stays text here too
  // Every disturbed repeat, replaced or judged, from the repeat records.
  EXPECT_NE(html->find("2 of 3 repeats measured were disturbed; 1 of them were replaced by a re-run."),
            std::string::npos);
  EXPECT_NE(html->find("<td>B</td><td>2</td><td>replaced (re-run)</td>"), std::string::npos);
  EXPECT_NE(html->find("<th>migrations</th><th>why</th>"), std::string::npos);
  EXPECT_NE(html->find("<td>judged (the re-run bound was reached)</td><td>6</td><td>the ranks waited for a CPU 30%"),
            std::string::npos);
  EXPECT_NE(html->find("<td>replaced (re-run)</td><td>n/a</td>"), std::string::npos);  // not recorded
  // Without a sequential gate (compare), no section.
  EXPECT_EQ(RenderComparisonHtml(Hostile(), "a", "b")->find("id=\"sequential\""), std::string::npos);
}

TEST(ComparisonHtmlTest, AnUngateablePointIsSaidFirst) {
  gate::Comparison c = Hostile();
  auto k = std::make_shared<gate::Calibration>();
  k->source = gate::CalibrationSource::kBaselineRepeats;
  gate::PointCalibration quiet, noisy;
  quiet.id = "quiet";
  quiet.gateable = true;
  noisy.id = "noisy<b>";
  noisy.spread = 0.15;
  noisy.budget_repeats = 40;
  noisy.detectable = 0.11;
  noisy.min_effect = 0.05;
  noisy.repeats_needed = 190;
  k->points = {quiet, noisy};
  c.options.calibration = k;
  StatusOr<std::string> html = RenderComparisonHtml(c, "a", "b");
  ASSERT_TRUE(html.ok());
  const size_t section = html->find("<main><section id=\"calibration\"");
  ASSERT_NE(section, std::string::npos);  // before the outcome and every verdict
  EXPECT_LT(section, html->find("<section id=\"outcome\""));
  EXPECT_NE(html->find("the first baseline's own repeats"), std::string::npos);
  EXPECT_NE(html->find("<li>noisy&lt;b&gt;: a repeat spreads 15.0%, 40 repeats a side detect 11.0% (floor 5%); it "
                       "would need 190 repeats a side</li>"),
            std::string::npos);
  EXPECT_NE(html->find("<td>1: too few to tell</td>"), std::string::npos);  // the baseline's job alone

  // Gateable by its repeats, not by the jobs of its build: said so, with the jobs' figures.
  gate::PointCalibration drifting;
  drifting.id = "drifting";
  drifting.spread = 0.02;
  drifting.detectable = 0.03;
  drifting.min_effect = 0.05;
  drifting.job_medians_us = {110, 95, 104};
  drifting.job_spread = 0.062;
  drifting.job_detectable = 0.31;
  k->points = {drifting};
  html = RenderComparisonHtml(c, "a", "b");
  ASSERT_TRUE(html.ok());
  EXPECT_NE(html->find("<td>4: 6.2%, 31.0%</td><td>no: its jobs cannot tell the floor (more jobs, or --ab)</td>"),
            std::string::npos);
  EXPECT_NE(html->find("<li>drifting: against a stored baseline, 4 jobs of this build spread 6.2% and detect 31.0%"),
            std::string::npos);
  c.options.calibration.reset();
  EXPECT_EQ(RenderComparisonHtml(c, "a", "b")->find("id=\"calibration\""), std::string::npos);
}

}  // namespace
}  // namespace commbench::gate
