#include "lib/history/trend_html.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace commbench::history {
namespace {

TEST(TrendHtml, OneSelfContainedPageWithTheDataEmbedded) {
  CheckResult r;
  r.dir = "hist</script><b>x</b>";
  SeriesCheck s;
  s.series.point_id = "p";
  r.series.push_back(s);
  auto html = RenderTrendHtml(r);
  ASSERT_TRUE(html.ok()) << html.status().message();
  EXPECT_NE(html->find("id=\"commbench-history\""), std::string::npos);
  EXPECT_EQ(html->find("hist</script>"), std::string::npos);  // escaped inside the JSON script element
  EXPECT_NE(html->find("hist\\u003c/script\\u003e"), std::string::npos);
  EXPECT_EQ(html->find("http://"),
            html->find("http://www.w3.org") == std::string::npos ? std::string::npos : html->find("http://"));
  EXPECT_EQ(html->find("@@"), std::string::npos);
}

}  // namespace
}  // namespace commbench::history
