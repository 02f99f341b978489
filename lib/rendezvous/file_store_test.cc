#include "lib/rendezvous/file_store.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "lib/rendezvous/run_store.h"
#include "lib/rendezvous/store.h"

namespace commbench {
namespace {

class FileStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/commbench-store-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(FileStoreTest, SetThenGetAcrossInstancesAndPrefixes) {
  auto writer = NewFileStore(dir_);
  auto reader = NewFileStore(dir_);
  PrefixStore a("group0", writer.get());
  PrefixStore b("group1", writer.get());
  ASSERT_TRUE(a.Set("k", {'x'}).ok());
  ASSERT_TRUE(b.Set("k", {'y', 'z'}).ok());
  PrefixStore ra("group0", reader.get());
  auto got = ra.Get("k", std::chrono::milliseconds(1000));
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(*got, std::vector<char>({'x'}));
  EXPECT_EQ(*PrefixStore("group1", reader.get()).Get("k", std::chrono::milliseconds(1000)),
            std::vector<char>({'y', 'z'}));
}

TEST_F(FileStoreTest, GetWaitsForALateWriter) {
  auto store = NewFileStore(dir_);
  std::thread late([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    auto w = NewFileStore(dir_);
    ASSERT_TRUE(w->Set("late", {'1'}).ok());
  });
  auto got = store->Get("late", std::chrono::milliseconds(5000));
  late.join();
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(*got, std::vector<char>({'1'}));
}

TEST_F(FileStoreTest, MissingKeyTimesOut) {
  auto store = NewFileStore(dir_);
  auto got = store->Get("never", std::chrono::milliseconds(50));
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_NE(got.status().message().find("'never'"), std::string::npos);
}

mode_t ModeOf(const std::string& path) {
  struct stat st;
  EXPECT_EQ(lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

// Restores the umask when the test ends.
class Umask {
 public:
  explicit Umask(mode_t mask) : old_(umask(mask)) {}
  ~Umask() { umask(old_); }

 private:
  mode_t old_;
};

TEST_F(FileStoreTest, UnderUmask000TheRunDirectoryIs0700AndEveryKeyFile0600) {
  Umask open_umask(0);
  auto run = OpenRunStore("file:" + dir_, "modes", std::chrono::milliseconds(1000));
  ASSERT_TRUE(run.ok()) << run.status().message();
  ASSERT_TRUE((*run)->Claim(2).ok());
  ASSERT_TRUE((*run)->store()->Set("arrive/0", {'x'}).ok());
  const std::string run_dir = dir_ + "/commbench-modes";
  EXPECT_EQ(ModeOf(run_dir), 0700u);
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(run_dir)) {
    EXPECT_EQ(ModeOf(e.path().string()), 0600u) << e.path();
    ++files;
  }
  EXPECT_EQ(files, 2);  // the owner record and the key
  // The store the driver's ranks use (a directory it made) writes 0600 files too.
  auto plain = NewFileStore(dir_);
  ASSERT_TRUE(plain->Set("k", {'1'}).ok());
  EXPECT_EQ(ModeOf(dir_ + "/" + FileStoreName("k")), 0600u);
  ASSERT_TRUE((*run)->Remove().ok());
}

TEST_F(FileStoreTest, ARunDirectoryWritableByOthersIsRefusedInOneLineNamingIt) {
  const std::string run_dir = dir_ + "/commbench-open";
  ASSERT_EQ(mkdir(run_dir.c_str(), 0700), 0);
  ASSERT_EQ(chmod(run_dir.c_str(), 0777), 0);
  auto run = OpenRunStore("file:" + dir_, "open", std::chrono::milliseconds(1000));
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(run.status().message().find(run_dir + " is writable by others (mode 0777)"), std::string::npos)
      << run.status().message();
  EXPECT_EQ(run.status().message().find('\n'), std::string::npos);
  EXPECT_TRUE(std::filesystem::is_empty(run_dir));
  // The same for a store directory given directly.
  EXPECT_FALSE(NewFileStore(run_dir)->Set("k", {'1'}).ok());
  EXPECT_TRUE(std::filesystem::is_empty(run_dir));
}

TEST_F(FileStoreTest, ARunDirectoryOwnedByAnotherUserIsRefused) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to give a directory to another user";
  const std::string run_dir = dir_ + "/commbench-theirs";
  ASSERT_EQ(mkdir(run_dir.c_str(), 0700), 0);
  ASSERT_EQ(chown(run_dir.c_str(), 65534, 65534), 0);
  auto run = OpenRunStore("file:" + dir_, "theirs", std::chrono::milliseconds(1000));
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(run.status().message().find(run_dir + " is owned by uid 65534"), std::string::npos)
      << run.status().message();
  EXPECT_TRUE(std::filesystem::is_empty(run_dir));
}

TEST_F(FileStoreTest, ASymlinkAtTheRunDirectoryIsRefusedAndNothingIsWrittenThroughIt) {
  const std::string target = dir_ + "/target";
  ASSERT_EQ(mkdir(target.c_str(), 0700), 0);
  const std::string run_dir = dir_ + "/commbench-linked";
  ASSERT_EQ(symlink(target.c_str(), run_dir.c_str()), 0);
  auto run = OpenRunStore("file:" + dir_, "linked", std::chrono::milliseconds(1000));
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(run.status().message().find(run_dir + " is a symlink"), std::string::npos) << run.status().message();
  EXPECT_TRUE(std::filesystem::is_empty(target));
  EXPECT_FALSE(NewFileStore(run_dir)->Set("k", {'1'}).ok());
  EXPECT_TRUE(std::filesystem::is_empty(target));
}

TEST_F(FileStoreTest, ASymlinkAtAKeyIsNeitherReadNorWrittenThrough) {
  const std::string outside = dir_ + "-outside";
  { std::ofstream(outside) << "secret"; }
  const std::string store_dir = dir_ + "/store";
  ASSERT_EQ(mkdir(store_dir.c_str(), 0700), 0);
  ASSERT_EQ(symlink(outside.c_str(), (store_dir + "/" + FileStoreName("k")).c_str()), 0);
  auto store = NewFileStore(store_dir);
  auto got = store->Get("k", std::chrono::milliseconds(100));
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("is a symlink; refused"), std::string::npos) << got.status().message();
  EXPECT_FALSE(store->Set("k", {'x'}).ok());
  std::ifstream in(outside);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "secret");
  std::filesystem::remove(outside);
}

TEST_F(FileStoreTest, AKeyIsWrittenOnce) {
  auto store = NewFileStore(dir_);
  ASSERT_TRUE(store->Set("k", {'1'}).ok());
  Status again = store->Set("k", {'2'});
  EXPECT_FALSE(again.ok());
  EXPECT_NE(again.message().find("already set"), std::string::npos) << again.message();
  EXPECT_EQ(*store->Get("k", std::chrono::milliseconds(10)), std::vector<char>({'1'}));
}

}  // namespace
}  // namespace commbench
