#include "lib/core/printable.h"

#include <gtest/gtest.h>

#include "lib/core/escape_testing.h"

namespace commbench {
namespace {

using testing::BidiControls;
using testing::HostileInputs;
using testing::PlainVisible;
using testing::Utf8;

TEST(PrintableTest, EscapesControlsAndKeepsText) {
  EXPECT_EQ(Printable("plain text, ünïcode €"), "plain text, ünïcode €");
  EXPECT_EQ(Printable("a\nb\r\t\x1b[31m\x7f"), "a\\x0ab\\x0d\\x09\\x1b[31m\\x7f");
  EXPECT_EQ(Printable(std::string("nul\0x", 5)), "nul\\x00x");
  EXPECT_EQ(Printable("\xc2\x9b"
                      "31m"),
            "\\u009b31m");  // the 8-bit CSI
  EXPECT_EQ(Printable("host\xe2\x80\xae"
                      "evil"),
            "host\\u202eevil");
  EXPECT_EQ(Printable("\xff\xfe"), "\\xff\\xfe");
  EXPECT_EQ(Printable("\xe2\x82"), "\\xe2\\x82");           // truncated
  EXPECT_EQ(Printable("\xc0\xaf"), "\\xc0\\xaf");           // overlong '/'
  EXPECT_EQ(Printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a lone surrogate
  EXPECT_EQ(Printable("\xef\xbf\xbf"), "\\uffff");
  EXPECT_EQ(Printable("\xf0\x9f\x98\x80"), "\xf0\x9f\x98\x80");
}

TEST(PrintableTest, EveryHostileInputBecomesOnePlainLine) {
  for (const std::string& in : HostileInputs()) {
    const std::string out = Printable(in);
    std::string why;
    EXPECT_TRUE(PlainVisible(out, &why)) << why << " in " << out;
    EXPECT_EQ(out.find('\n'), std::string::npos);
    EXPECT_EQ(out.find('\x1b'), std::string::npos);
  }
}

TEST(PrintableTest, EveryBidiControlIsEscaped) {
  for (char32_t c : BidiControls()) {
    char want[16];
    std::snprintf(want, sizeof(want), "\\u%04x", static_cast<unsigned>(c));
    EXPECT_EQ(Printable(Utf8(c)), want);
  }
}

TEST(PrintableTest, DecodeUtf8RejectsWhatIsNotUtf8) {
  char32_t cp = 0;
  EXPECT_EQ(DecodeUtf8("\xe2\x82\xac", 0, &cp), 3u);
  EXPECT_EQ(cp, 0x20acu);
  EXPECT_EQ(DecodeUtf8("\x80", 0, &cp), 0u);
  EXPECT_EQ(DecodeUtf8("\xf5\x80\x80\x80", 0, &cp), 0u);
  EXPECT_EQ(DecodeUtf8("\xf4\x90\x80\x80", 0, &cp), 0u);  // beyond U+10FFFF
  EXPECT_EQ(DecodeUtf8("\xe0\x80\x80", 0, &cp), 0u);      // overlong
}

TEST(ConsoleLinesTest, NoLineIsAWorkflowCommand) {
  EXPECT_EQ(ConsoleLines("ok\n::error::forged\n  ::warning x\nfine ::x\n"),
            "ok\n\\x3a:error::forged\n  \\x3a:warning x\nfine ::x\n");
  EXPECT_EQ(ConsoleLines("a\x1b[2J\nb"), "a\\x1b[2J\nb");
  for (const std::string& in : HostileInputs()) {
    const std::string out = ConsoleLines("line: " + in + "\n" + in + "\n");
    size_t start = 0;
    while (start < out.size()) {
      const size_t end = out.find('\n', start);
      const std::string line = out.substr(start, end - start);
      std::string why;
      EXPECT_TRUE(PlainVisible(line, &why)) << why;
      EXPECT_NE(line.substr(line.find_first_not_of(' ') == std::string::npos ? 0 : line.find_first_not_of(' '), 2),
                "::");
      start = end + 1;
    }
  }
}

}  // namespace
}  // namespace commbench
