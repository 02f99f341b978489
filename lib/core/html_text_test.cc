#include "lib/core/html_text.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "lib/core/escape_testing.h"

namespace commbench {
namespace {

using testing::BidiControls;
using testing::Utf8;

TEST(HtmlEscapeTest, EntitiesAndVisibleBidi) {
  EXPECT_EQ(HtmlEscape("<a href=\"x\">'&'</a>"), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  EXPECT_EQ(HtmlEscape("host\xe2\x80\xae"
                       "cod.exe"),
            "host\\u202ecod.exe");
  EXPECT_EQ(HtmlEscape("caf\xc3\xa9 \xe2\x82\xac"), "caf\xc3\xa9 \xe2\x82\xac");
}

TEST(HtmlEscapeTest, EveryHostileInputIsPlainText) {
  for (const std::string& in : testing::HostileInputs()) {
    const std::string out = HtmlEscape(in);
    std::string why;
    EXPECT_TRUE(testing::PlainVisible(out, &why)) << why << " in " << out;
    EXPECT_EQ(out.find_first_of("<>\"'"), std::string::npos) << out;
  }
}

TEST(EscapeBidiInJsonTest, SameValueNoRawBidi) {
  for (char32_t c : BidiControls()) {
    const nlohmann::json value = {{"host", "a" + Utf8(c) + "b"}, {"n", -3.5}};
    const std::string text = EscapeBidiInJson(value.dump());
    EXPECT_EQ(text.find(Utf8(c)), std::string::npos) << text;
    EXPECT_EQ(nlohmann::json::parse(text), value);
  }
  EXPECT_EQ(EscapeBidiInJson("{\"h\":\"\xe2\x81\xa6x\"}"), "{\"h\":\"\\u2066x\"}");
  EXPECT_EQ(EscapeBidiInJson("\"\xe2\x82\xac\xff\""), "\"\xe2\x82\xac\xff\"");  // other text as it is
}

}  // namespace
}  // namespace commbench
