#include "lib/core/output_paths.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "lib/core/temp_dir.h"

namespace commbench {
namespace {

TEST(OutputPathsTest, AnOutputThatNamesAnInputInAnySpellingIsRefused) {
  TempDir dir("output-paths-");
  const std::string d = dir.path();
  std::ofstream(d + "/B.json") << "{}";
  mkdir((d + "/sub").c_str(), 0700);
  ASSERT_EQ(symlink((d + "/B.json").c_str(), (d + "/link.json").c_str()), 0);
  ASSERT_EQ(symlink((d + "/new.json").c_str(), (d + "/dangling.json").c_str()), 0);
  ASSERT_EQ(link((d + "/B.json").c_str(), (d + "/hard.json").c_str()), 0);
  for (const std::string& out :
       {d + "/hard.json", d + "/B.json", d + "/./B.json", d + "/sub/../B.json", d + "/link.json", d + "//B.json"}) {
    Status s = CheckOutputsApart({{"--out", out}}, {{"--baseline", d + "/B.json"}});
    ASSERT_FALSE(s.ok()) << out;
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(s.message().find("--out " + out + " is also --baseline"), std::string::npos) << s.message();
  }
  // Two outputs that reach one file (a dangling link to a file still to be written).
  Status two = CheckOutputsApart({{"--json", d + "/new.json"}, {"--html", d + "/dangling.json"}}, {});
  ASSERT_FALSE(two.ok());
  EXPECT_NE(two.message().find("is also the output --json"), std::string::npos) << two.message();
  EXPECT_TRUE(CheckOutputsApart({{"--out", d + "/C.json"}, {"--html", ""}}, {{"--baseline", d + "/B.json"}}).ok());
}

TEST(OutputPathsTest, AnOutputInsideAStoreIsRefused) {
  TempDir dir("output-paths-");
  const std::string d = dir.path();
  mkdir((d + "/hist").c_str(), 0700);
  Status s = CheckOutputsApart({{"--json", d + "/hist/history.json"}}, {}, {{"the history", d + "/hist"}});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("lies inside the history " + d + "/hist"), std::string::npos) << s.message();
  EXPECT_FALSE(CheckOutputsApart({{"--json", d + "/hist/runs/x.json"}}, {}, {{"the history", d + "/hist/"}}).ok());
  EXPECT_TRUE(CheckOutputsApart({{"--json", d + "/hist.json"}}, {}, {{"the history", d + "/hist"}}).ok());
}

TEST(OutputPathsTest, RelativeSpellingsResolveAgainstTheWorkingDirectory) {
  TempDir dir("output-paths-");
  char cwd[4096];
  ASSERT_NE(getcwd(cwd, sizeof(cwd)), nullptr);
  ASSERT_EQ(chdir(dir.path().c_str()), 0);
  std::ofstream("r.json") << "{}";
  EXPECT_FALSE(CheckOutputsApart({{"-o", "r.json"}}, {{"RESULT", dir.path() + "/r.json"}}).ok());
  EXPECT_FALSE(CheckOutputsApart({{"-o", "./r.json"}}, {{"RESULT", "r.json"}}).ok());
  EXPECT_EQ(ResolvedPath("r.json"), ResolvedPath(dir.path() + "/r.json"));
  ASSERT_EQ(chdir(cwd), 0);
}

}  // namespace
}  // namespace commbench
