#include "lib/traffic/step_text.h"

#include <gtest/gtest.h>

namespace commbench {
namespace traffic {
namespace {

TEST(ParamCount, SuffixesAreDecimal) {
  EXPECT_EQ(*ParseParamCount("1.3B", "--params"), 1'300'000'000u);
  EXPECT_EQ(*ParseParamCount("350M", "--params"), 350'000'000u);
  EXPECT_EQ(*ParseParamCount("7G", "--params"), 7'000'000'000u);
  EXPECT_EQ(*ParseParamCount("125k", "--params"), 125'000u);
  EXPECT_EQ(*ParseParamCount("1234", "--params"), 1234u);
}

TEST(ParamCount, BadTextNamesIt) {
  for (const char* bad : {"", "0", "-5", "1.5", "abc", "1..2M", "B", "2e9", "1.3X"}) {
    auto r = ParseParamCount(bad, "--params");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find(std::string("--params '") + bad + "'"), std::string::npos);
  }
}

TEST(DecimalBytes, UnitsAndExactCount) {
  EXPECT_EQ(DecimalBytes(999), "999 B");
  EXPECT_EQ(DecimalBytes(4'550'000'000), "4.55 GB (4,550,000,000 B)");
}

}  // namespace
}  // namespace traffic
}  // namespace commbench
