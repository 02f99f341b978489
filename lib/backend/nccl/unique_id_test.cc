#include "lib/backend/nccl/unique_id.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <thread>

namespace commbench::nccl {
namespace {

using std::chrono::milliseconds;

class UniqueIdTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "commbench-nccl-id-XXXXXX").string();
    dir_ = mkdtemp(tmpl.data());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

StatusOr<std::vector<char>> MakeId() { return std::vector<char>{'n', 'c', 'c', 'l'}; }

TEST_F(UniqueIdTest, EveryRankGetsRankZerosId) {
  std::vector<StatusOr<std::vector<char>>> got(3, StatusOr<std::vector<char>>(Internal("not run")));
  std::vector<std::thread> threads;
  int makes = 0;
  for (int r = 2; r >= 0; --r) {  // the waiters start first
    threads.emplace_back([&, r] {
      auto store = NewFileStore(dir_);
      PrefixStore group("g0", store.get());
      got[r] = ExchangeUniqueId(
          &group, r,
          [&] {
            ++makes;
            return MakeId();
          },
          4, milliseconds(5000));
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(makes, 1);
  for (int r = 0; r < 3; ++r) {
    ASSERT_TRUE(got[r].ok()) << r << ": " << got[r].status().message();
    EXPECT_EQ(*got[r], *MakeId()) << r;
  }
}

TEST_F(UniqueIdTest, WaiterTimesOutNamingItself) {
  auto store = NewFileStore(dir_);
  auto got = ExchangeUniqueId(store.get(), 1, MakeId, 4, milliseconds(50));
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_NE(got.status().message().find("nccl: group rank 1 did not get the unique id from group rank 0 through file:"),
            std::string::npos)
      << got.status().message();
}

TEST_F(UniqueIdTest, SizeMismatchIsAnError) {
  auto store = NewFileStore(dir_);
  auto made = ExchangeUniqueId(store.get(), 0, MakeId, 128, milliseconds(50));
  ASSERT_FALSE(made.ok());
  EXPECT_NE(made.status().message().find("4 bytes, expected 128"), std::string::npos);

  ASSERT_TRUE(store->Set(kUniqueIdKey, {'x'}).ok());
  auto got = ExchangeUniqueId(store.get(), 1, MakeId, 128, milliseconds(50));
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("has 1 bytes, expected 128"), std::string::npos);
}

TEST_F(UniqueIdTest, MakeFailurePropagates) {
  auto store = NewFileStore(dir_);
  auto got = ExchangeUniqueId(
      store.get(), 0,
      []() -> StatusOr<std::vector<char>> { return Internal("ncclGetUniqueId: unhandled system error"); }, 128,
      milliseconds(50));
  EXPECT_EQ(got.status().message(), "ncclGetUniqueId: unhandled system error");
  EXPECT_FALSE(ExchangeUniqueId(nullptr, 0, MakeId, 4, milliseconds(1)).ok());
}

}  // namespace
}  // namespace commbench::nccl
