#include "lib/core/markdown.h"

#include <gtest/gtest.h>

#include "lib/core/escape_testing.h"

namespace commbench {
namespace {

TEST(MarkdownTextTest, MetacharactersPipesAndHtml) {
  EXPECT_EQ(MarkdownText("allreduce gloo 4 KiB"), "allreduce gloo 4 KiB");
  EXPECT_EQ(MarkdownText("a|b"), "a\\|b");
  EXPECT_EQ(MarkdownText("[x](http://e) **b** `c` ~~s~~ $m$ _i_ #h \\"),
            "\\[x\\](http://e) \\*\\*b\\*\\* \\`c\\` \\~\\~s\\~\\~ \\$m\\$ \\_i\\_ \\#h \\\\");
  EXPECT_EQ(MarkdownText("<script>&amp;</script>"), "&lt;script&gt;&amp;amp;&lt;/script&gt;");
  EXPECT_EQ(MarkdownText("row\n| forged | row |"), "row\\x0a\\| forged \\| row \\|");
  EXPECT_EQ(MarkdownText("host\xe2\x80\xae"), "host\\u202e");
}

// No output can end a cell or a row, open markup, or carry a raw control.
TEST(MarkdownTextTest, EveryHostileInputStaysInItsCell) {
  for (const std::string& in : testing::HostileInputs()) {
    const std::string out = MarkdownText(in);
    std::string why;
    EXPECT_TRUE(testing::PlainVisible(out, &why)) << why << " in " << out;
    EXPECT_EQ(out.find_first_of("<>"), std::string::npos) << out;
    for (size_t i = 0; i < out.size(); ++i) {
      if (out[i] == '\\') {
        ++i;  // an escape: the next character is literal
        continue;
      }
      EXPECT_EQ(std::string("`*_[]~$|#").find(out[i]), std::string::npos) << "unescaped " << out[i] << " in " << out;
    }
  }
}

}  // namespace
}  // namespace commbench
