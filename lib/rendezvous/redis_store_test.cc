// RedisStore against a real redis-server started here on a free loopback port
// (one with a password, one without), stopped by its pid at the end.
#include "lib/rendezvous/redis_store.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "lib/rendezvous/testing/redis_server.h"

extern char **environ;

namespace commbench {
namespace {

using commbench::testing::RedisServer;
using std::chrono::milliseconds;

class RedisStoreTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    open_ = new RedisServer("");
    locked_ = new RedisServer("s3cret-pw");
  }
  static void TearDownTestSuite() {
    delete open_;
    delete locked_;
  }
  void SetUp() override {
    ASSERT_TRUE(open_->started() && locked_->started()) << "redis-server could not be started (tools/setup.sh)";
  }
  static std::unique_ptr<RedisStore> Connect(const std::string &url) {
    auto a = ParseRedisUrl(url, nullptr);
    EXPECT_TRUE(a.ok()) << a.status().message();
    auto s = RedisStore::Connect(*a, milliseconds(2000));
    EXPECT_TRUE(s.ok()) << s.status().message();
    return s.ok() ? std::move(*s) : nullptr;
  }
  static std::string Url(const RedisServer *s, const std::string &credentials = "") {
    return "redis://" + credentials + "127.0.0.1:" + std::to_string(s->port());
  }
  static RedisServer *open_;
  static RedisServer *locked_;
};
RedisServer *RedisStoreTest::open_ = nullptr;
RedisServer *RedisStoreTest::locked_ = nullptr;

TEST_F(RedisStoreTest, SetThenGetAcrossConnectionsAndPrefixes) {
  auto writer = Connect(Url(open_));
  auto reader = Connect(Url(open_));
  ASSERT_TRUE(writer && reader);
  PrefixStore a("run1/group0", writer.get()), b("run2/group0", writer.get());
  ASSERT_TRUE(a.Set("k", {'x', '\0', 'y'}).ok());
  ASSERT_TRUE(b.Set("k", {'z'}).ok());
  auto got = PrefixStore("run1/group0", reader.get()).Get("k", milliseconds(1000));
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(*got, std::vector<char>({'x', '\0', 'y'}));  // binary-safe
  EXPECT_EQ(*PrefixStore("run2/group0", reader.get()).Get("k", milliseconds(1000)), std::vector<char>({'z'}));
  EXPECT_EQ(*reader->RemoveKeys("run1/"), 1);
  EXPECT_EQ(*reader->RemoveKeys("run2/"), 1);
}

TEST_F(RedisStoreTest, GetWaitsForALateWriterAndTimesOutNamingTheKey) {
  auto store = Connect(Url(open_));
  ASSERT_TRUE(store);
  std::thread late([this] {
    std::this_thread::sleep_for(milliseconds(150));
    auto w = Connect(Url(open_));
    ASSERT_TRUE(w->Set("late/key", {'1'}).ok());
  });
  auto got = store->Get("late/key", milliseconds(5000));
  late.join();
  ASSERT_TRUE(got.ok()) << got.status().message();
  auto t0 = std::chrono::steady_clock::now();
  auto missing = store->Get("never/there", milliseconds(300));
  double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(missing.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_NE(missing.status().message().find("'never/there' did not appear within 300 ms"), std::string::npos);
  EXPECT_GE(waited, 0.3);
  EXPECT_LT(waited, 2.0);
  ASSERT_TRUE(store->RemoveKeys("late/").ok());
}

// A run removes its own namespace and nothing else, even when its prefix holds
// glob characters.
TEST_F(RedisStoreTest, RemoveKeysTakesOnlyTheLiteralPrefix) {
  auto store = Connect(Url(open_));
  ASSERT_TRUE(store);
  for (const char *k : {"cb/run[1]*/a", "cb/run[1]*/b", "cb/run11/a", "cb/run1/a", "other"}) {
    ASSERT_TRUE(store->Set(k, {'v'}).ok());
  }
  auto removed = store->RemoveKeys("cb/run[1]*/");
  ASSERT_TRUE(removed.ok()) << removed.status().message();
  EXPECT_EQ(*removed, 2);
  for (const char *k : {"cb/run11/a", "cb/run1/a", "other"}) EXPECT_TRUE(store->Get(k, milliseconds(0)).ok()) << k;
  EXPECT_EQ(*store->RemoveKeys("cb/"), 2);
  EXPECT_EQ(*store->RemoveKeys("other"), 1);
}

TEST_F(RedisStoreTest, PasswordFromUrlOrEnvironmentAndNeverInMessages) {
  auto in_url = Connect(Url(locked_, ":s3cret-pw@"));
  ASSERT_TRUE(in_url);
  EXPECT_TRUE(in_url->Set("k", {'1'}).ok());
  EXPECT_EQ(in_url->Describe().find("s3cret"), std::string::npos);

  auto from_env = ParseRedisUrl(Url(locked_), "s3cret-pw");
  ASSERT_TRUE(from_env.ok());
  auto s = RedisStore::Connect(*from_env, milliseconds(2000));
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(*(*s)->RemoveKeys("k"), 1);

  auto none = RedisStore::Connect(*ParseRedisUrl(Url(locked_), nullptr), milliseconds(2000));
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("needs a password"), std::string::npos) << none.status().message();

  auto wrong = RedisStore::Connect(*ParseRedisUrl(Url(locked_, ":wrong-pw@"), nullptr), milliseconds(2000));
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("authentication failed"), std::string::npos) << wrong.status().message();
  EXPECT_EQ(wrong.status().message().find("wrong-pw"), std::string::npos) << wrong.status().message();
}

TEST_F(RedisStoreTest, UnreachableServerIsNamed) {
  auto s = RedisStore::Connect(
      *ParseRedisUrl("redis://:pw@127.0.0.1:" + std::to_string(commbench::testing::FreeLoopbackPort()), nullptr),
      milliseconds(500));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("cannot connect"), std::string::npos) << s.status().message();
  EXPECT_EQ(s.status().message().find(":pw@"), std::string::npos);
}

TEST(RedisUrlTest, Parses) {
  auto a = ParseRedisUrl("redis://alice:pw@node0:6380/2", nullptr);
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->host, "node0");
  EXPECT_EQ(a->port, 6380);
  EXPECT_EQ(a->db, 2);
  EXPECT_EQ(a->user, "alice");
  EXPECT_EQ(a->password, "pw");
  EXPECT_EQ(a->Describe(), "redis://node0:6380/2");
  a = ParseRedisUrl("redis://[::1]", "from-env");
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->host, "::1");
  EXPECT_EQ(a->port, 6379);
  EXPECT_EQ(a->password, "from-env");
  EXPECT_EQ(a->Describe(), "redis://[::1]:6379");
  EXPECT_EQ(ParseRedisUrl("redis://:in-url@h", "from-env")->password, "in-url");
}

TEST(RedisUrlTest, RejectsWithThePasswordMasked) {
  for (const char *url : {"redis://:topsecret@h:99999", "redis://:topsecret@", "redis://:topsecret@h:1/x",
                          "http://:topsecret@h", "redis://topsecret@h", "redis://:topsecret@[::1"}) {
    auto a = ParseRedisUrl(url, nullptr);
    ASSERT_EQ(a.status().code(), StatusCode::kInvalidArgument) << url;
    const std::string &m = a.status().message();
    EXPECT_NE(m.find("accepted: redis://"), std::string::npos) << m;
    if (std::string(url).find(":topsecret@") != std::string::npos) {
      EXPECT_EQ(m.find("topsecret"), std::string::npos) << m;
    }
  }
}

// lib/core/redact_test.cc tests the redaction itself; here, that the parser's errors use it whatever the
// password holds (spaces, quotes, '@', newlines, bytes that are not UTF-8).
TEST(RedisUrlTest, ErrorsNeverShowAPasswordWhateverItHolds) {
  for (const std::string pw : {"a b", "a'b", "a@b", "a:b/c", "a\nb", "\xff\xfe", "a://b"}) {
    for (const std::string &url : {"redis://:" + pw + "@h:99999", "redis://u:" + pw + "@", "rediss://:" + pw + "@h",
                                   ":" + pw + "@host:6379", "u:" + pw + "@host"}) {
      auto a = ParseRedisUrl(url, nullptr);
      ASSERT_FALSE(a.ok()) << url;
      EXPECT_EQ(a.status().message().find(pw), std::string::npos) << a.status().message();
    }
  }
}

}  // namespace
}  // namespace commbench
