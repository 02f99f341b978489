#include "lib/core/xml.h"

#include <gtest/gtest.h>

#include "lib/core/escape_testing.h"

namespace commbench {
namespace {

TEST(XmlEscapeTest, EntitiesAndReferences) {
  EXPECT_EQ(XmlEscape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
  EXPECT_EQ(XmlEscape("tab\tnl\ncr\r"), "tab&#9;nl&#10;cr&#13;");
  EXPECT_EQ(XmlEscape("\x1b[31m"), "\\x1b[31m");
  EXPECT_EQ(XmlEscape(std::string("\0", 1)), "\\x00");
  EXPECT_EQ(XmlEscape("\xef\xbf\xbe\xef\xbf\xbf"), "\\ufffe\\uffff");
  EXPECT_EQ(XmlEscape("\xed\xbf\xbf"), "\\xed\\xbf\\xbf");  // a lone surrogate
  EXPECT_EQ(XmlEscape("caf\xc3\xa9"), "caf\xc3\xa9");
}

// Every output is XML 1.0 character data: plain visible UTF-8 and no markup but the entities written here.
TEST(XmlEscapeTest, EveryHostileInputIsWellFormed) {
  for (const std::string& in : testing::HostileInputs()) {
    const std::string out = XmlEscape(in);
    std::string why;
    EXPECT_TRUE(testing::PlainVisible(out, &why)) << why << " in " << out;
    EXPECT_EQ(out.find_first_of("<>\"'"), std::string::npos) << out;
    for (size_t i = out.find('&'); i != std::string::npos; i = out.find('&', i + 1)) {
      bool known = false;
      for (const char* e : {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;", "&#9;", "&#10;", "&#13;"}) {
        known = known || out.compare(i, std::string(e).size(), e) == 0;
      }
      EXPECT_TRUE(known) << out.substr(i);
    }
  }
}

}  // namespace
}  // namespace commbench
