#include "lib/core/csv_cell.h"

#include <gtest/gtest.h>

#include "lib/core/escape_testing.h"

namespace commbench {
namespace {

TEST(CsvFieldTest, QuotesOnlyWhatRfc4180Requires) {
  EXPECT_EQ(CsvField("gloo"), "gloo");
  EXPECT_EQ(CsvField("-3.5"), "-3.5");  // a number we format stays a number
  EXPECT_EQ(CsvField("0,1"), "\"0,1\"");
  EXPECT_EQ(CsvField("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(CsvField(""), "");
}

TEST(CsvTextTest, FormulaPrefixesAreQuotedText) {
  EXPECT_EQ(CsvText("gloo"), "gloo");
  EXPECT_EQ(CsvText("=1+2"), "\"'=1+2\"");
  EXPECT_EQ(CsvText("+1"), "\"'+1\"");
  EXPECT_EQ(CsvText("-3.5"), "\"'-3.5\"");
  EXPECT_EQ(CsvText("@SUM(A1)"), "\"'@SUM(A1)\"");
  EXPECT_EQ(CsvText("\t=1"), "\"'\t=1\"");
  EXPECT_EQ(CsvText("\r=1"), "\"'\r=1\"");
  EXPECT_EQ(CsvText("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
  EXPECT_EQ(CsvText("'quoted"), "\"'quoted\"");
  EXPECT_EQ(CsvText("a=1"), "a=1");
}

TEST(CsvTextTest, NoHostileCellStartsAFormula) {
  for (const std::string& in : testing::HostileInputs()) {
    const std::string out = CsvText(in);
    ASSERT_FALSE(out.empty() && !in.empty());
    if (out.empty()) continue;
    const size_t first = out[0] == '"' ? 1 : 0;
    if (first < out.size()) {
      EXPECT_EQ(std::string("=+-@\t\r").find(out[first]), std::string::npos) << out;
    }
    EXPECT_TRUE(first == 1 || out.find_first_of(",\"\r\n") == std::string::npos) << out;
  }
}

}  // namespace
}  // namespace commbench
