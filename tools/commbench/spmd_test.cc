// SPMD mode with real processes: four `commbench sweep` ranks given --rank/--world (as a launcher would give
// RANK/WORLD_SIZE), meeting in a real directory or a real redis-server with a password. The missing-rank and
// killed-rank cases are bounded and named, and nothing is left behind: no process, no key, no file.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "lib/rendezvous/redis_store.h"
#include "lib/rendezvous/testing/redis_server.h"
#include "tools/commbench/testing/cli_runner.h"

namespace commbench {
namespace {

using nlohmann::json;
using testing::CliResult;
using testing::CliRunner;
namespace fs = std::filesystem;

std::vector<std::string> RankArgs(int rank, int world, const std::string& rendezvous, const std::string& out,
                                  const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"sweep",        "--rank",   std::to_string(rank), "--world",   std::to_string(world),
                                   "--rendezvous", rendezvous, "--run-id",           "spmd-test", "--quiet",
                                   "-o",           out};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// Starts `started` of `world` ranks and waits for them all.
std::vector<CliResult> RunRanks(CliRunner& cli, int world, int started, const std::string& rendezvous,
                                const std::string& out, const std::vector<std::string>& extra) {
  std::vector<pid_t> pids;
  for (int r = 0; r < started; ++r) pids.push_back(cli.Start(RankArgs(r, world, rendezvous, out, extra)));
  std::vector<CliResult> results;
  for (pid_t p : pids) results.push_back(cli.Wait(p));
  return results;
}

json ReadJson(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

void ExpectNothingLeft(const CliRunner& cli, const std::string& store_dir) {
  EXPECT_TRUE(cli.Leftovers().empty());
  if (!store_dir.empty()) {
    EXPECT_TRUE(fs::is_empty(store_dir)) << store_dir;
  }
}

TEST(Spmd, FourRanksOverAFileStoreRunOneSweepAndRankZeroWritesIt) {
  CliRunner cli;
  const std::string store = cli.dir() + "/rendezvous";
  fs::create_directories(store);
  const std::string out = cli.dir() + "/out.json";
  auto results = RunRanks(cli, 4, 4, "file:" + store, out,
                          {"--groups", "1,2", "--sizes", "400,64K", "--time-budget", "0.05", "--timeout", "20"});
  for (size_t r = 0; r < results.size(); ++r) EXPECT_EQ(results[r].exit_code, 0) << r << ": " << results[r].err;
  const json j = ReadJson(out);
  ASSERT_EQ(j["points"].size(), 4u);
  for (const json& p : j["points"]) {
    EXPECT_TRUE(p["correct"].get<bool>()) << p["id"];
    const size_t ranks = p["per_rank"].size();
    EXPECT_EQ(ranks, static_cast<size_t>(p["world"].get<int>()));
    for (const json& r : p["per_rank"]) {
      EXPECT_FALSE(r.value("address", "").empty()) << r.dump();
      EXPECT_FALSE(r.value("host", "").empty()) << r.dump();
    }
    for (const json& g : p["per_group"]) EXPECT_EQ(g["hosts"].size(), 1u) << g.dump();  // one host here
  }
  // Only rank 0 writes: one result (and its samples sidecar) in the directory, nothing from the others.
  EXPECT_TRUE(fs::exists(cli.dir() + "/out.samples.jsonl"));
  // A plain sweep's first-run defaults stay off for ranks a launcher started: no A/Bs, no report.
  EXPECT_FALSE(j.contains("explain"));
  EXPECT_FALSE(fs::exists(cli.dir() + "/commbench-report.html"));
  ExpectNothingLeft(cli, store);
}

TEST(Spmd, RedisWithAPasswordNeverRecordsItAndLeavesNoKey) {
  commbench::testing::RedisServer redis("hunter2-secret");
  ASSERT_TRUE(redis.started()) << "redis-server could not be started (tools/setup.sh)";
  CliRunner cli;
  const std::string out = cli.dir() + "/out.json";
  const std::string html = cli.dir() + "/out.html";
  auto results =
      RunRanks(cli, 4, 4, redis.Url(":hunter2-secret@"), out,
               {"--groups", "1,2", "--sizes", "400", "--time-budget", "0.05", "--timeout", "20", "--html", html});
  for (size_t r = 0; r < results.size(); ++r) {
    EXPECT_EQ(results[r].exit_code, 0) << r << ": " << results[r].err;
    EXPECT_EQ(results[r].err.find("hunter2"), std::string::npos) << results[r].err;
  }
  for (const std::string& file : {out, html, cli.dir() + "/out.samples.jsonl"}) {
    std::ifstream in(file);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_FALSE(text.empty()) << file;
    EXPECT_EQ(text.find("hunter2"), std::string::npos) << file;
  }
  EXPECT_NE(ReadJson(out)["command"].get<std::string>().find("redis://***@"), std::string::npos);
  auto address = ParseRedisUrl(redis.Url(":hunter2-secret@"), nullptr);
  ASSERT_TRUE(address.ok());
  auto store = RedisStore::Connect(*address, std::chrono::milliseconds(2000));
  ASSERT_TRUE(store.ok());
  auto left = (*store)->RemoveKeys("");
  ASSERT_TRUE(left.ok());
  EXPECT_EQ(*left, 0) << "keys left in Redis after the run";
  ExpectNothingLeft(cli, "");
}

TEST(Spmd, AMissingRankIsNamedByEveryOtherRankWithExitThree) {
  CliRunner cli;
  const std::string store = cli.dir() + "/rendezvous";
  fs::create_directories(store);
  const auto t0 = std::chrono::steady_clock::now();
  auto results = RunRanks(cli, 4, 3, "file:" + store, cli.dir() + "/out.json",
                          {"--groups", "1,2", "--sizes", "400", "--timeout", "2"});
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(took, 15.0);
  for (const CliResult& r : results) {
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_NE(r.err.find("rank 3 of 4"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("never arrived"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;  // one line
  }
  EXPECT_FALSE(fs::exists(cli.dir() + "/out.json"));
  ExpectNothingLeft(cli, store);
}

TEST(Spmd, AKilledRankStopsTheOthersAndRankZeroWritesThePartialResult) {
  CliRunner cli;
  const std::string store = cli.dir() + "/rendezvous";
  fs::create_directories(store);
  const std::string out = cli.dir() + "/out.json";
  std::vector<pid_t> pids;
  const std::vector<std::string> extra = {"--groups",      "2", "--sizes",   "400,64K,1M,4M",
                                          "--time-budget", "1", "--timeout", "4"};
  for (int r = 0; r < 4; ++r) pids.push_back(cli.Start(RankArgs(r, 4, "file:" + store, out, extra)));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // inside the first or second point
  ASSERT_EQ(kill(pids[3], SIGKILL), 0);
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<CliResult> results;
  for (pid_t p : pids) results.push_back(cli.Wait(p));
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(took, 20.0) << "the others must stop within about the timeout";
  EXPECT_EQ(results[3].exit_code, 128 + SIGKILL);
  EXPECT_EQ(results[0].exit_code, 1) << results[0].err;
  EXPECT_NE(results[0].err.find("rank 3 ("), std::string::npos) << results[0].err;
  EXPECT_NE(results[0].err.find("stopped without a word"), std::string::npos) << results[0].err;
  for (int r = 1; r < 3; ++r) EXPECT_NE(results[static_cast<size_t>(r)].exit_code, 0);
  const json j = ReadJson(out);
  EXPECT_EQ(j["status"], "partial");
  EXPECT_LT(j["points"].size(), 4u);
  ExpectNothingLeft(cli, store);
}

TEST(Spmd, TheSweepFitsTheWorldInOneLine) {
  CliRunner cli;
  const std::string store = cli.dir() + "/rendezvous";
  fs::create_directories(store);
  const std::string out = cli.dir() + "/out.json";
  std::vector<pid_t> pids;
  for (int r = 0; r < 4; ++r) {
    pids.push_back(cli.Start({"sweep", "--rank", std::to_string(r), "--world", "4", "--rendezvous", "file:" + store,
                              "--run-id", "fit", "-o", out, "--groups", "1..4", "--sizes", "400", "--time-budget",
                              "0.05", "--timeout", "20"}));
  }
  std::vector<CliResult> results;
  for (pid_t p : pids) results.push_back(cli.Wait(p));
  for (const CliResult& r : results) EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(results[0].err.find("skipped --groups 3-4: need more ranks than the 4 the launcher started"),
            std::string::npos)
      << results[0].err;
  EXPECT_EQ(ReadJson(out)["points"].size(), 2u);
  ExpectNothingLeft(cli, store);
}

// A real launcher: mpirun starts four `commbench sweep` processes; each reads its rank from OMPI_COMM_WORLD_*
// and the run id from Open MPI's job id.
TEST(Spmd, UnderMpirunTheRanksFindTheirPlaceAndRunId) {
  if (std::system("command -v mpirun >/dev/null 2>&1") != 0) GTEST_SKIP() << "mpirun is not installed";
  CliRunner cli;
  const std::string store = cli.dir() + "/rendezvous";
  const std::string shm = cli.dir() + "/mpi-shm";  // Open MPI's shared-memory files, removed with the runner
  fs::create_directories(store);
  fs::create_directories(shm);
  const std::string out = cli.dir() + "/out.json";
  const std::string command = "cd " + cli.dir() + " && mpirun --allow-run-as-root --oversubscribe --bind-to none " +
                              "--mca btl_vader_backing_directory " + shm + " -np 4 " + CliRunner::Binary() +
                              " sweep --rendezvous file:" + store + " --groups 1,2 --sizes 400 --time-budget 0.05" +
                              " --timeout 20 --quiet -o " + out + " > mpirun.log 2>&1";
  const int status = std::system(command.c_str());
  std::ifstream log(cli.dir() + "/mpirun.log");
  const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  ASSERT_EQ(status, 0) << text;
  const json j = ReadJson(out);
  ASSERT_EQ(j["points"].size(), 2u);
  std::set<int> pids;
  for (const json& p : j["points"]) {
    EXPECT_TRUE(p["correct"].get<bool>());
    for (const json& r : p["per_rank"]) pids.insert(r["pid"].get<int>());
  }
  EXPECT_EQ(pids.size(), 4u);  // four processes, each one rank
  ExpectNothingLeft(cli, store);
}

// Kills every rank of a run mid-sweep (SIGKILL: nothing cleans up), as a crashed job does.
void CrashARun(CliRunner& cli, const std::string& rendezvous, const std::string& out) {
  std::vector<pid_t> pids;
  for (int r = 0; r < 4; ++r) {
    pids.push_back(cli.Start(RankArgs(
        r, 4, rendezvous, out, {"--groups", "2", "--sizes", "400,64K,1M", "--time-budget", "2", "--timeout", "20"})));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));  // arrived, inside a point
  for (pid_t p : pids) kill(p, SIGKILL);
  for (pid_t p : pids) cli.Wait(p);
}

const std::vector<std::string> kShort = {"--groups",      "1,2",  "--sizes",   "400",
                                         "--time-budget", "0.05", "--timeout", "20"};

TEST(Spmd, ARerunWithTheRunIdOfACrashedRunOnTheFileStoreRuns) {
  CliRunner cli;
  const std::string store = cli.dir() + "/rendezvous";
  fs::create_directories(store);
  const std::string out = cli.dir() + "/out.json";
  CrashARun(cli, "file:" + store, out);
  EXPECT_FALSE(fs::is_empty(store));  // the crashed run's files
  auto results = RunRanks(cli, 4, 4, "file:" + store, out, kShort);
  for (size_t r = 0; r < results.size(); ++r) EXPECT_EQ(results[r].exit_code, 0) << r << ": " << results[r].err;
  ASSERT_TRUE(fs::exists(out));
  EXPECT_EQ(ReadJson(out)["points"].size(), 2u);
  ExpectNothingLeft(cli, store);
}

TEST(Spmd, RedisKeysOfACrashedRunExpireAndARerunWithItsIdRuns) {
  commbench::testing::RedisServer redis("");
  ASSERT_TRUE(redis.started()) << "redis-server could not be started (tools/setup.sh)";
  CliRunner cli;
  const std::string out = cli.dir() + "/out.json";
  CrashARun(cli, redis.Url(), out);
  auto address = ParseRedisUrl(redis.Url(), nullptr);
  ASSERT_TRUE(address.ok());
  auto store = RedisStore::Connect(*address, std::chrono::milliseconds(2000));
  ASSERT_TRUE(store.ok());
  auto keys = (*store)->ListKeys("");
  ASSERT_TRUE(keys.ok());
  EXPECT_FALSE(keys->empty());
  for (const std::string& key : *keys) {
    auto ttl = (*store)->TtlMs(key);
    ASSERT_TRUE(ttl.ok());
    EXPECT_GT(*ttl, 0) << key << " never expires";
  }
  auto results = RunRanks(cli, 4, 4, redis.Url(), out, kShort);
  for (size_t r = 0; r < results.size(); ++r) EXPECT_EQ(results[r].exit_code, 0) << r << ": " << results[r].err;
  EXPECT_EQ(*(*store)->RemoveKeys(""), 0) << "keys left in Redis after the rerun";
  ExpectNothingLeft(cli, "");
}

TEST(Spmd, ASecondRunWithALiveRunsIdIsRefusedAsInUseAndTheFirstRunsOn) {
  CliRunner cli;
  const std::string store = cli.dir() + "/rendezvous";
  fs::create_directories(store);
  const std::string out = cli.dir() + "/out.json";
  std::vector<pid_t> first;
  for (int r = 0; r < 4; ++r) {
    first.push_back(cli.Start(RankArgs(
        r, 4, "file:" + store, out, {"--groups", "2", "--sizes", "400,64K", "--time-budget", "1", "--timeout", "20"})));
  }
  const std::string run_dir = store + "/commbench-spmd-test";
  for (int i = 0; i < 200 && !(fs::exists(run_dir) && !fs::is_empty(run_dir)); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  CliResult second = cli.Run(RankArgs(0, 4, "file:" + store, cli.dir() + "/second.json", kShort));
  EXPECT_EQ(second.exit_code, 3) << second.err;
  EXPECT_NE(second.err.find("run id spmd-test in use at file:" + run_dir + " by rank 0 on "), std::string::npos)
      << second.err;
  EXPECT_EQ(std::count(second.err.begin(), second.err.end(), '\n'), 1) << second.err;
  for (pid_t p : first) {
    CliResult r = cli.Wait(p);
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
  EXPECT_FALSE(fs::exists(cli.dir() + "/second.json"));
  ExpectNothingLeft(cli, store);
}

TEST(Spmd, AStoreDirectoryThatIsASymlinkOrOpenToOthersIsRefusedInOneLine) {
  CliRunner cli;
  const std::string store = cli.dir() + "/rendezvous";
  const std::string target = cli.dir() + "/target";
  fs::create_directories(store);
  fs::create_directories(target);
  fs::create_symlink(target, store + "/commbench-spmd-test");
  CliResult r = cli.Run(RankArgs(0, 1, "file:" + store, cli.dir() + "/out.json", kShort));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(store + "/commbench-spmd-test is a symlink; refused"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_TRUE(fs::is_empty(target));  // nothing written through it
  fs::remove(store + "/commbench-spmd-test");
  // World-writable (and, as root, another user's): refused the same way.
  const std::string open_dir = store + "/commbench-spmd-test";
  ASSERT_EQ(mkdir(open_dir.c_str(), 0700), 0);
  ASSERT_EQ(chmod(open_dir.c_str(), 0777), 0);
  if (geteuid() == 0) {
    ASSERT_EQ(chown(open_dir.c_str(), 65534, 65534), 0);
  }
  r = cli.Run(RankArgs(0, 1, "file:" + store, cli.dir() + "/out.json", kShort));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(open_dir + " is "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("; refused"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::is_empty(open_dir));
  EXPECT_FALSE(fs::exists(cli.dir() + "/out.json"));
}

// A rank that hangs for good (outside any collective) while the others run a point far longer than --timeout.
// Its group peer's read times out --timeout after the hang; every other rank must leave within the grace
// (kSpmdGrace, 5 s) of that, wherever it was blocked (before: rank 0 took about 10 s more naming the ranks).
TEST(Spmd, WithAHungRankTheOthersLeaveWithinTheTimeoutPlusTheGrace) {
  CliRunner cli;
  const std::string store = cli.dir() + "/rendezvous";
  fs::create_directories(store);
  const double grace_s = 5;
  std::vector<pid_t> pids;
  const auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < 4; ++r) {
    pids.push_back(cli.Start(RankArgs(
        r, 4, "file:" + store, cli.dir() + "/out.json",
        {"--groups", "2", "--sizes", "400", "--iters", "2000000", "--test-only-hang-rank", "3:2", "--timeout", "4"})));
  }
  // Whatever is still there long after the bound is stopped, so that a failure here never hangs the suite.
  std::thread reaper([&pids, t0] {
    while (std::chrono::steady_clock::now() - t0 < std::chrono::seconds(40)) {
      bool alive = false;
      for (pid_t p : pids) alive |= kill(p, 0) == 0;
      if (!alive) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    for (pid_t p : pids) kill(p, SIGKILL);
  });
  std::vector<CliResult> results(4);
  std::vector<double> took(4);
  for (int r : {2, 0, 1, 3}) {  // rank 2 first: its exit is the reference
    results[static_cast<size_t>(r)] = cli.Wait(pids[static_cast<size_t>(r)]);
    took[static_cast<size_t>(r)] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  reaper.join();
  EXPECT_NE(results[2].err.find("Read timeout"), std::string::npos) << results[2].err;
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(results[static_cast<size_t>(r)].exit_code, 1) << r << ": " << results[static_cast<size_t>(r)].err;
    EXPECT_LT(took[static_cast<size_t>(r)] - took[2], grace_s) << "rank " << r;
  }
  EXPECT_NE(results[0].err.find("rank 3 ("), std::string::npos) << results[0].err;
  ExpectNothingLeft(cli, store);
}

// A point longer than --timeout whose ranks keep iterating (rank 0 sleeps 2 ms in each of 4000 iterations: at
// least 8 s, against --timeout 6) completes: rank 0 sees every rank's progress through their beats in the store,
// not only finished points. --timeout is not shorter: with other tests beside it on 2 cores, a thread here went
// unscheduled for 4.1 s (a sleeping probe's longest gap, 2026-11-27), and a stall that long inside one operation
// is a hang by --timeout 3's own definition.
TEST(Spmd, APointLongerThanTheTimeoutThatKeepsIteratingCompletes) {
  CliRunner cli;
  const std::string store = cli.dir() + "/rendezvous";
  fs::create_directories(store);
  const std::string out = cli.dir() + "/out.json";
  const auto results = RunRanks(cli, 2, 2, "file:" + store, out,
                                {"--groups", "1", "--sizes", "400", "--iters", "4000", "--warmup", "0", "--timeout",
                                 "6", "--test-only-slow-rank", "0:2000"});
  for (const CliResult& r : results) EXPECT_EQ(r.exit_code, 0) << r.err;
  const json j = ReadJson(out);
  ASSERT_EQ(j["status"], "complete");
  ASSERT_EQ(j["points"].size(), 1u);
  EXPECT_GT(j["points"][0]["per_rank"][0]["wall_s"].get<double>(), 7.0) << "the point must outlast --timeout";
  ExpectNothingLeft(cli, store);
  // The ranks' progress pages went with them (the processes _Exit, which runs no destructor).
  EXPECT_TRUE(cli.TempEntries().empty()) << cli.TempEntries().front();
}

TEST(Spmd, UnderALauncherWithoutARendezvousItSaysWhatToGive) {
  CliRunner cli;
  CliResult r = cli.Run({"sweep", "--rank", "1", "--world", "2", "--groups", "1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--rendezvous"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

}  // namespace
}  // namespace commbench
