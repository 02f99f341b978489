// A run's namespace in a shared store: two runs never see each other's keys, and Remove() leaves nothing of the
// run behind, in a real directory and on a real redis-server.
#include "lib/rendezvous/run_store.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "lib/core/temp_dir.h"
#include "lib/rendezvous/redis_store.h"
#include "lib/rendezvous/testing/redis_server.h"

namespace commbench {
namespace {

using std::chrono::milliseconds;
namespace fs = std::filesystem;

void ExpectRunsDoNotMix(const std::string& url) {
  auto a = OpenRunStore(url, "job 17.0", milliseconds(2000));
  auto b = OpenRunStore(url, "job 18.0", milliseconds(2000));
  ASSERT_TRUE(a.ok() && b.ok()) << url;
  ASSERT_TRUE((*a)->store()->Set("plan", {'A'}).ok());
  ASSERT_TRUE((*b)->store()->Set("plan", {'B'}).ok());
  auto got = (*a)->store()->Get("plan", milliseconds(500));
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, std::vector<char>{'A'});
  ASSERT_TRUE((*a)->Remove().ok());
  EXPECT_FALSE((*a)->store()->Get("plan", milliseconds(50)).ok());  // gone
  got = (*b)->store()->Get("plan", milliseconds(500));                // the other run's key stays
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, std::vector<char>{'B'});
  EXPECT_TRUE((*b)->Remove().ok());
}

TEST(RunStore, FileRunsDoNotMixAndRemoveLeavesTheDirectoryAsFound) {
  TempDir dir("run-store-");
  ExpectRunsDoNotMix("file:" + dir.path());
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(RunStore, RedisRunsDoNotMixAndRemoveLeavesNoKey) {
  commbench::testing::RedisServer server("pw-42");
  ASSERT_TRUE(server.started()) << "redis-server could not be started (tools/setup.sh)";
  ExpectRunsDoNotMix(server.Url(":pw-42@"));
  auto a = ParseRedisUrl(server.Url(":pw-42@"), nullptr);
  ASSERT_TRUE(a.ok());
  auto redis = RedisStore::Connect(*a, milliseconds(2000));
  ASSERT_TRUE(redis.ok());
  auto left = (*redis)->RemoveKeys("");  // everything: the two runs removed theirs
  ASSERT_TRUE(left.ok());
  EXPECT_EQ(*left, 0);
}

TEST(RunStore, DescribeNeverShowsThePassword) {
  commbench::testing::RedisServer server("very-secret");
  ASSERT_TRUE(server.started());
  auto s = OpenRunStore(server.Url(":very-secret@"), "r1", milliseconds(2000));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ((*s)->Describe().find("very-secret"), std::string::npos) << (*s)->Describe();
  EXPECT_NE((*s)->Describe().find("commbench-r1"), std::string::npos) << (*s)->Describe();
}

TEST(RunStore, BadUrlsNameTheValueAndWhatIsAccepted) {
  auto s = OpenRunStore("file:/no/such/dir", "r", milliseconds(100));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.status().message().find("/no/such/dir"), std::string::npos);
  s = OpenRunStore("tcp://:pw@host:1", "r", milliseconds(100));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message().find("pw"), std::string::npos) << s.status().message();
  EXPECT_NE(s.status().message().find("redis://"), std::string::npos) << s.status().message();
}

}  // namespace
}  // namespace commbench
