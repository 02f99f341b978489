#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace commbench
