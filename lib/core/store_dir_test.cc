#include "lib/core/store_dir.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "lib/core/temp_dir.h"

namespace commbench {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(StoreNameTest, EveryTextBecomesOneSafeComponentAndDistinctTextsStayDistinct) {
  std::vector<std::string> texts = {"",
                                    ".",
                                    "..",
                                    "main..feature",
                                    "1f2e..dirty",
                                    "a/b",
                                    "../../etc/passwd",
                                    "x\ny",
                                    "\x1b[31m",
                                    "abc",
                                    "abc.",
                                    std::string(500, 'a'),
                                    std::string(499, 'a') + "b",
                                    std::string("\0z", 2),
                                    "\xff\xfe"};
  for (int c = 0; c < 256; ++c) texts.push_back(std::string(1, static_cast<char>(c)) + "tail");
  std::vector<std::string> names;
  for (const std::string& t : texts) {
    const std::string n = EncodeStoreName(t);
    EXPECT_FALSE(n.empty());
    EXPECT_NE(n, ".");
    EXPECT_NE(n, "..");
    EXPECT_NE(n[0], '.') << t;
    EXPECT_LE(n.size(), 80u);
    for (unsigned char c : n)
      EXPECT_TRUE(std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '%' || c == '~') << n;
    names.push_back(n);
  }
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end()) << "two texts share a name";
  EXPECT_EQ(EncodeStoreName("abc-1.2_x"), "abc-1.2_x");  // plain names read as themselves
}

TEST(StoreDirTest, WritesReadsAndListsItsOwnFiles) {
  TempDir tmp("store-dir-");
  auto store = StoreDir::Open(tmp.path() + "/s", /*create=*/true);
  ASSERT_TRUE(store.ok()) << store.status().message();
  ASSERT_TRUE(store->Replace("index.json", "one").ok());
  ASSERT_TRUE(store->Replace("index.json", "two").ok());
  EXPECT_EQ(*store->Read("index.json", 100), "two");
  ASSERT_TRUE(store->CreateNew("run-0.json", "r0").ok());
  Status again = store->CreateNew("run-0.json", "other");
  EXPECT_NE(again.message().find("already exists"), std::string::npos);
  EXPECT_EQ(*store->Read("run-0.json", 100), "r0");
  auto sub = store->Subdir("runs", true);
  ASSERT_TRUE(sub.ok()) << sub.status().message();
  auto files = store->ListFiles();
  ASSERT_TRUE(files.ok());
  std::sort(files->begin(), files->end());
  EXPECT_EQ(*files, (std::vector<std::string>{"index.json", "run-0.json"}));  // no temporary file left
  EXPECT_EQ(store->Read("absent", 10).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store->Replace("../x", "no").code(), StatusCode::kInternal);  // a name the store did not encode
}

TEST(StoreDirTest, APlantedLinkIsAnErrorAndItsTargetIsUntouched) {
  TempDir tmp("store-dir-");
  const std::string victim = tmp.path() + "/victim";
  std::ofstream(victim) << "precious";
  auto store = StoreDir::Open(tmp.path() + "/s", true);
  ASSERT_TRUE(store.ok());
  const std::string s = tmp.path() + "/s";
  for (const char* name : {"next.json", "index.json", "store.lock", "data"}) {
    ASSERT_EQ(symlink(victim.c_str(), (s + "/" + name).c_str()), 0);
  }
  ASSERT_EQ(symlink((tmp.path() + "/created-by-link").c_str(), (s + "/new.lock").c_str()), 0);
  EXPECT_FALSE(store->CreateNew("next.json", "evil").ok());
  Status replaced = store->Replace("index.json", "evil");
  EXPECT_EQ(replaced.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(replaced.message().find("a symlink"), std::string::npos) << replaced.message();
  EXPECT_FALSE(store->TakeLock("store.lock").ok());
  EXPECT_FALSE(store->TakeLock("new.lock").ok());
  EXPECT_EQ(store->Read("data", 100).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Slurp(victim), "precious");
  EXPECT_NE(access((tmp.path() + "/created-by-link").c_str(), F_OK), 0);
  // The same through a one-file store (a baseline).
  EXPECT_FALSE(ReplaceStoreFile(s + "/index.json", "evil").ok());
  EXPECT_EQ(Slurp(victim), "precious");
  EXPECT_FALSE(FileLock::Take(s + "/store.lock").ok());
}

TEST(StoreDirTest, RefusesADirectoryThatIsALinkOrThatOthersMayWrite) {
  TempDir tmp("store-dir-");
  mkdir((tmp.path() + "/real").c_str(), 0755);
  ASSERT_EQ(symlink((tmp.path() + "/real").c_str(), (tmp.path() + "/link").c_str()), 0);
  auto linked = StoreDir::Open(tmp.path() + "/link", false);
  ASSERT_FALSE(linked.ok());
  EXPECT_NE(linked.status().message().find("is a symlink"), std::string::npos);
  mkdir((tmp.path() + "/open").c_str(), 0777);
  chmod((tmp.path() + "/open").c_str(), 0777);
  auto open = StoreDir::Open(tmp.path() + "/open", false);
  ASSERT_FALSE(open.ok());
  EXPECT_NE(open.status().message().find("may be written by every user"), std::string::npos);
  std::ofstream(tmp.path() + "/file") << "x";
  EXPECT_FALSE(StoreDir::Open(tmp.path() + "/file", false).ok());
  EXPECT_EQ(StoreDir::Open(tmp.path() + "/absent", false).status().code(), StatusCode::kNotFound);
  auto real = StoreDir::Open(tmp.path() + "/real", false);
  ASSERT_TRUE(real.ok());
  ASSERT_EQ(symlink((tmp.path() + "/real").c_str(), (tmp.path() + "/real/sublink").c_str()), 0);
  EXPECT_FALSE(real->Subdir("sublink", true).ok());
}

TEST(StoreDirTest, AReplacedFileKeepsItsMode) {
  TempDir tmp("store-dir-");
  auto store = StoreDir::Open(tmp.path(), false);
  ASSERT_TRUE(store.ok()) << store.status().message();
  ASSERT_TRUE(store->Replace("b.json", "1").ok());
  chmod((tmp.path() + "/b.json").c_str(), 0600);
  ASSERT_TRUE(store->Replace("b.json", "2").ok());
  struct stat st;
  ASSERT_EQ(stat((tmp.path() + "/b.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_TRUE(ReplaceStoreFile(tmp.path() + "/b.json", "3").ok());
  ASSERT_EQ(stat((tmp.path() + "/b.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(Slurp(tmp.path() + "/b.json"), "3");
}

}  // namespace
}  // namespace commbench
