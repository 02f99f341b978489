// A run's namespace in a shared store: two runs never see each other's keys, and Remove() leaves nothing of the
// run behind, in a real directory and on a real redis-server.
#include "lib/rendezvous/run_store.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include "lib/core/temp_dir.h"
#include "lib/rendezvous/file_store.h"
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
  got = (*b)->store()->Get("plan", milliseconds(500));              // the other run's key stays
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

// A real process claims the run id, writes a key and dies without cleaning up (as a crashed rank 0 does).
void CrashAfterClaiming(const std::string& url, const std::string& run_id) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto run = OpenRunStore(url, run_id, milliseconds(2000));
    const bool ok = run.ok() && (*run)->Claim(2).ok() && (*run)->store()->Set("arrive/0", {'x'}).ok();
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

// A joined rank keeps writing (its progress beats, then its goodbye) while rank 0 removes the run, and after: a
// late key must not outlive the run, whichever of the two removes it. Many rounds, so that a write lands between
// rank 0's sweep and its removal of the directory in some of them.
void ExpectALateWriterLeavesNothing(const std::string& url, int rounds) {
  for (int round = 0; round < rounds; ++round) {
    const std::string run_id = "late-" + std::to_string(round);
    auto owner = OpenRunStore(url, run_id, milliseconds(2000));
    auto joined = OpenRunStore(url, run_id, milliseconds(2000));
    ASSERT_TRUE(owner.ok() && joined.ok()) << url;
    ASSERT_TRUE((*owner)->Claim(2).ok());
    ASSERT_TRUE((*joined)->Join(2, milliseconds(2000)).ok());
    ASSERT_TRUE((*owner)->store()->Set("arrive/0", {'0'}).ok());
    std::atomic<bool> owner_gone{false};
    std::thread writer([&] {
      // Writes on until some time after rank 0 left, then leaves as a rank does.
      int after = 0;
      for (int k = 0; after < 20; ++k) {
        (void)(*joined)->store()->Set("beat/1/" + std::to_string(k), {'b'});
        if (owner_gone) ++after;
      }
      EXPECT_TRUE((*joined)->Remove().ok());
      EXPECT_FALSE((*joined)->store()->Set("failed/1", {'f'}).ok()) << "a write after Remove";
    });
    std::this_thread::sleep_for(milliseconds(round % 5));
    (void)(*owner)->Remove();  // may give up on a directory the writer keeps filling: the writer then removes it
    owner_gone = true;
    writer.join();
    EXPECT_FALSE((*owner)->store()->Set("failed/0", {'f'}).ok()) << "a write after Remove";
  }
}

TEST(RunStore, AFileRunsLateWriterLeavesNothing) {
  TempDir dir("run-store-");
  ExpectALateWriterLeavesNothing("file:" + dir.path(), 100);
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(RunStore, ARedisRunsLateWriterLeavesNoKey) {
  commbench::testing::RedisServer server("");
  ASSERT_TRUE(server.started()) << "redis-server could not be started (tools/setup.sh)";
  ExpectALateWriterLeavesNothing(server.Url(""), 30);
  auto address = ParseRedisUrl(server.Url(""), nullptr);
  ASSERT_TRUE(address.ok());
  auto redis = RedisStore::Connect(*address, milliseconds(2000));
  ASSERT_TRUE(redis.ok());
  auto left = (*redis)->RemoveKeys("");
  ASSERT_TRUE(left.ok());
  EXPECT_EQ(*left, 0);
}

std::vector<std::string> FilesIn(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  return names;
}

TEST(RunStore, AFileRunIdInUseIsRefusedNamingItsOwnerAndTheCommandThatClearsIt) {
  TempDir dir("run-store-");
  auto first = OpenRunStore("file:" + dir.path(), "busy", milliseconds(2000));
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE((*first)->Claim(4).ok());
  ASSERT_TRUE((*first)->store()->Set("arrive/0", {'a'}).ok());
  auto second = OpenRunStore("file:" + dir.path(), "busy", milliseconds(2000));
  ASSERT_TRUE(second.ok());
  Status s = (*second)->Claim(4);
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_NE(s.message().find("run id busy in use at file:" + dir.path() + "/commbench-busy by rank 0 on "),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("pid " + std::to_string(getpid())), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("rm -r -- '" + dir.path() + "/commbench-busy'"), std::string::npos) << s.message();
  // The refused run removes nothing of the live one.
  ASSERT_TRUE((*second)->Remove().ok());
  EXPECT_EQ(*(*first)->store()->Get("arrive/0", milliseconds(100)), std::vector<char>{'a'});
  // A rank of another world joining it is told the same.
  EXPECT_EQ((*second)->Join(8, milliseconds(100)).code(), StatusCode::kUnavailable);
  ASSERT_TRUE((*first)->Remove().ok());
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(RunStore, ACrashedFileRunIsTakenOverAndWhatItLeftIsRemoved) {
  TempDir dir("run-store-");
  const std::string url = "file:" + dir.path();
  CrashAfterClaiming(url, "crashed");
  const std::string run_dir = dir.path() + "/commbench-crashed";
  EXPECT_EQ(FilesIn(run_dir).size(), 2u);  // its owner record and its key stay behind
  auto next = OpenRunStore(url, "crashed", milliseconds(2000));
  ASSERT_TRUE(next.ok());
  // A rank of the new run waiting before its rank 0 claims does not join the dead one.
  EXPECT_EQ((*next)->Join(2, milliseconds(100)).code(), StatusCode::kDeadlineExceeded);
  ASSERT_TRUE((*next)->Claim(2).ok());  // its process is gone from this host: stale at once
  EXPECT_EQ(FilesIn(run_dir), std::vector<std::string>{"owner"});
  EXPECT_FALSE((*next)->store()->Get("arrive/0", milliseconds(10)).ok());
  ASSERT_TRUE((*next)->Remove().ok());
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(RunStore, AnOwnerFromAnotherHostIsStaleOnlyOnceItsHeartbeatIsOlderThanTheBound) {
  TempDir dir("run-store-");
  const std::string url = "file:" + dir.path();
  auto elsewhere = OpenRunStore(url, "remote", milliseconds(2000));
  ASSERT_TRUE(elsewhere.ok());
  ASSERT_TRUE((*elsewhere)->Claim(2).ok());
  // Make the record another host's (its pid says nothing here).
  const std::string owner = dir.path() + "/commbench-remote/owner";
  std::string text;
  {
    std::ifstream in(owner);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  text.replace(text.find("host="), text.find('\n') - text.find("host="), "host=other-node");
  { std::ofstream(owner, std::ios::trunc) << text; }
  auto next = OpenRunStore(url, "remote", milliseconds(2000));
  ASSERT_TRUE(next.ok());
  EXPECT_EQ((*next)->Claim(2).code(), StatusCode::kUnavailable);  // heartbeat fresh: in use
  const timespec old[2] = {{time(nullptr) - kRunStaleAfter.count() - 5, 0},
                           {time(nullptr) - kRunStaleAfter.count() - 5, 0}};
  ASSERT_EQ(utimensat(AT_FDCWD, owner.c_str(), old, 0), 0);
  auto later = OpenRunStore(url, "remote", milliseconds(2000));
  ASSERT_TRUE(later.ok());
  EXPECT_TRUE((*later)->Claim(2).ok());
  ASSERT_TRUE((*later)->Remove().ok());
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(RunStore, RedisKeysExpireAndACrashedRunIsTakenOver) {
  commbench::testing::RedisServer server("");
  ASSERT_TRUE(server.started()) << "redis-server could not be started (tools/setup.sh)";
  auto a = ParseRedisUrl(server.Url(), nullptr);
  ASSERT_TRUE(a.ok());
  auto redis = RedisStore::Connect(*a, milliseconds(2000));
  ASSERT_TRUE(redis.ok());
  CrashAfterClaiming(server.Url(), "r");
  auto left = (*redis)->ListKeys("commbench-r/");
  ASSERT_TRUE(left.ok());
  ASSERT_EQ(left->size(), 2u);
  for (const std::string& key : *left) {
    auto ttl = (*redis)->TtlMs(key);
    ASSERT_TRUE(ttl.ok());
    const auto bound = key == "commbench-r/owner" ? milliseconds(kRunStaleAfter) : milliseconds(kRedisKeyTtl);
    EXPECT_GT(*ttl, 0) << key << " never expires";
    EXPECT_LE(*ttl, bound.count()) << key;
  }
  auto busy = OpenRunStore(server.Url(), "r", milliseconds(2000));
  ASSERT_TRUE(busy.ok());
  ASSERT_TRUE((*busy)->Claim(2).ok());  // the dead owner's process is gone from this host
  left = (*redis)->ListKeys("commbench-r/");
  ASSERT_TRUE(left.ok());
  EXPECT_EQ(*left, std::vector<std::string>{"commbench-r/owner"});
  auto second = OpenRunStore(server.Url(), "r", milliseconds(2000));
  ASSERT_TRUE(second.ok());
  Status s = (*second)->Claim(2);
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_NE(s.message().find("run id r in use at " + server.Url() + " commbench-r by rank 0 on"), std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("redis-cli"), std::string::npos) << s.message();
  ASSERT_TRUE((*busy)->Remove().ok());
  EXPECT_EQ(*(*redis)->RemoveKeys(""), 0);
}

}  // namespace
}  // namespace commbench
