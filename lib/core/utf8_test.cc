#include "lib/core/utf8.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace commbench {
namespace {

std::string Hex(unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof(buf), "\\x%02x", c);
  return buf;
}

TEST(Utf8Test, KeepsValidText) {
  for (const std::string& s : {std::string(""), std::string("plain ascii"), std::string("caf\xc3\xa9"),
                               std::string("\xe2\x82\xac \xf0\x9f\x98\x80"), std::string("nul\0inside", 10),
                               std::string("\xed\x9f\xbf\xef\xbf\xbf\xf4\x8f\xbf\xbf")}) {
    EXPECT_TRUE(IsValidUtf8(s)) << s;
    EXPECT_EQ(ValidUtf8OrEscaped(s), s);
  }
}

TEST(Utf8Test, EscapesEveryByteThatStartsNoSequenceAlone) {
  for (int b = 0x80; b <= 0xff; ++b) {
    const std::string s = "a" + std::string(1, static_cast<char>(b)) + "z";
    EXPECT_FALSE(IsValidUtf8(s)) << b;
    const std::string e = ValidUtf8OrEscaped(s);
    EXPECT_EQ(e, "a" + Hex(static_cast<unsigned char>(b)) + "z");
    EXPECT_TRUE(IsValidUtf8(e));
  }
}

TEST(Utf8Test, EscapesTruncatedOverlongAndSurrogateSequences) {
  EXPECT_EQ(ValidUtf8OrEscaped("\xc3"), "\\xc3");                             // truncated at the end
  EXPECT_EQ(ValidUtf8OrEscaped("\xe2\x82"), "\\xe2\\x82");                    // truncated 3-byte
  EXPECT_EQ(ValidUtf8OrEscaped("\xf0\x9f\x98"), "\\xf0\\x9f\\x98");           // truncated 4-byte
  EXPECT_EQ(ValidUtf8OrEscaped("\xe2\x82z"), "\\xe2\\x82z");                  // cut by an ASCII byte
  EXPECT_EQ(ValidUtf8OrEscaped("\xc0\xaf"), "\\xc0\\xaf");                    // overlong '/'
  EXPECT_EQ(ValidUtf8OrEscaped("\xe0\x80\xaf"), "\\xe0\\x80\\xaf");           // overlong
  EXPECT_EQ(ValidUtf8OrEscaped("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // a surrogate
  EXPECT_EQ(ValidUtf8OrEscaped("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // beyond U+10FFFF
  // A valid sequence beside a broken one survives.
  EXPECT_EQ(ValidUtf8OrEscaped("\xff\xc3\xa9"), "\\xff\xc3\xa9");
  // Latin-1 "café" (a file name typed in a Latin-1 terminal).
  EXPECT_EQ(ValidUtf8OrEscaped("caf\xe9.json"), "caf\\xe9.json");
}

TEST(Utf8Test, EveryTruncationOfEveryLengthIsEscapedToValidText) {
  for (const std::string& full :
       {std::string("\xc3\xa9"), std::string("\xe2\x82\xac"), std::string("\xf0\x9f\x98\x80")}) {
    for (size_t n = 1; n < full.size(); ++n) {
      const std::string e = ValidUtf8OrEscaped("x" + full.substr(0, n) + "y");
      EXPECT_TRUE(IsValidUtf8(e)) << e;
      EXPECT_EQ(e.size(), 2 + 4 * n) << e;
    }
  }
}

TEST(Utf8Test, LargeInputsAreLinear) {
  std::string big(5 << 20, '\xff');
  const std::string e = ValidUtf8OrEscaped(big);
  EXPECT_EQ(e.size(), big.size() * 4);
  EXPECT_TRUE(IsValidUtf8(e));
}

}  // namespace
}  // namespace commbench
