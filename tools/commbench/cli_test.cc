// The CLI end to end with real rank processes: bad input, a killed rank, a timeout, Ctrl-C. After each, no rank
// process and no temporary directory may remain.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "tools/commbench/testing/cli_runner.h"

namespace commbench::testing {
namespace {

namespace fs = std::filesystem;

int Lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// A process's argv from /proc ({} once it has gone).
std::vector<std::string> CommandLine(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline");
  std::vector<std::string> argv;
  for (std::string arg; std::getline(in, arg, '\0');) argv.push_back(arg);
  return argv;
}

void ExpectNothingLeft(const CliRunner& cli) {
  EXPECT_TRUE(cli.Leftovers().empty()) << "rank processes left behind";
  EXPECT_TRUE(cli.TempEntries().empty()) << "temporary files left behind: " << cli.TempEntries().front();
}

struct BadInput {
  std::vector<std::string> args;
  std::string message;  // a part of the one error line
};

TEST(CliTest, BadInputGetsOneLineAndExitCode2) {
  const std::vector<BadInput> cases = {
      {{"sweep", "--groups", "0..2"}, "--groups: value 0 in '0..2' is out of range (accepted: 1..4096)"},
      {{"sweep", "--groups", "3..1"}, "--groups: range '3..1' is empty"},
      {{"sweep", "--sizes", "1X"}, "--sizes: invalid value '1X'"},
      {{"sweep", "--backends", "nope"}, "unknown backend 'nope' (accepted: "},
      {{"sweep", "--nope"}, "sweep: unknown option '--nope' (see commbench sweep --help)"},
      // A mistyped flag names the one meant; a missing subcommand lists those accepted.
      {{"sweep", "--dtype", "f64"}, "sweep: unknown option '--dtype' (did you mean --dtypes?)"},
      {{"history"}, "history: a subcommand is required (accepted: add, check)"},
      {{"history", "trend"}, "history: unknown subcommand 'trend' (accepted: add, check)"},
      {{"gate", "--ab", "--a", "transport=x", "--b", "transport=y", "--budget", "-5"}, "--budget -5 (accepted: "},
      {{"sweep", "--groups", "100", "--group-size", "2"}, "world of 200 ranks exceeds the limit of 128"},
      {{"sweep", "--dtypes", "f8"}, "unknown dtype 'f8' (accepted: f32, f64, i32, f16, bf16)"},
      {{"sweep", "--sync", "sometimes"}, "--sync: unknown value 'sometimes'"},
      {{"sweep", "--cpus", "9-1"}, "--cpus: invalid value"},
      {{"sweep", "--check-rate", "1.5"}, "--check-rate: invalid value 1.5"},
      {{"sweep", "--time-budget-above", "1M=0"}, "--time-budget-above '1M=0': '0' is not a number of seconds"},
      {{"sweep", "--time-budget-above", "1M"}, "--time-budget-above '1M' (accepted: SIZE=SECONDS"},
      {{"sweep", "--time-budget-above", "1Q=1"}, "--time-budget-above: invalid value '1Q'"},
      {{"sweep", "--out", "/nonexistent/dir/r.json"},
       "cannot write /nonexistent/dir/r.json: directory /nonexistent/dir does not exist"},
      {{"run", "--groups", "1,2"}, "--groups: `run` measures one point"},
      // Outputs and host resources are checked before any rank starts.
      {{"sweep", "--out", "/dev/full"}, "cannot write /dev/full: it is a device"},
      {{"sweep", "--html", "/nonexistent/dir/r.html"}, "cannot write /nonexistent/dir/r.html"},
      {{"run", "--cpus", "99"}, "--cpus 99: CPU 99 is not available to this process"},
      {{"run", "--warmup", "99999999999999999999"}, "--warmup: invalid value '99999999999999999999' (accepted: "},
      // Numbers past their type's range are refused as typed, not saturated (docs/design.md §8: bad input names
      // the value).
      {{"sweep", "--iters", "99999999999999999999"}, "--iters: invalid value '99999999999999999999' (accepted: "},
      {{"sweep", "--sample-cap", "-1"}, "--sample-cap: invalid value"},
      {{"sweep", "--timeout", "1e999"}, "--timeout: invalid value '1e999' (accepted: a finite decimal number"},
      {{"sweep", "--iters", "0x10"}, "--iters: invalid value '0x10'"},
      {{"run", "--host", "999.1.1.1"}, "--host '999.1.1.1': "},
      {{"run", "--iface", "nosuch0"}, "--iface 'nosuch0': no such interface (accepted: "},
      {{"frobnicate"},
       "unknown subcommand 'frobnicate' (accepted: sweep, run, env, report, compare, gate, accept, export, history, "
       "traffic, help)"},
      // Every subcommand's errors start alike (they once started `commbench report:`, `commbench compare: error:`).
      {{"report", "/nonexistent/r.json"}, "/nonexistent/r.json"},
      {{"compare", "/nonexistent/a.json", "/nonexistent/b.json"}, "/nonexistent/a.json"},
      {{"gate", "--baseline", "/nonexistent/base.json"}, "/nonexistent/base.json"},
      // --rendezvous is for ranks a launcher started: without its variables (or --rank/--world) it is refused,
      // not ignored for a local sweep.
      {{"sweep", "--rendezvous", "file:/nonexistent/cb"},
       "--rendezvous file:/nonexistent/cb needs this process's place: no launcher variables"},
      {{"sweep", "--rank", "-1", "--world", "2"}, "--rank"},
      {{"sweep", "--world", "-1"}, "--world"},
      // A fault injected into a rank no launch has would inject nothing.
      {{"sweep", "--groups", "1", "--test-only-slow-rank", "9:1"},
       "--test-only-slow-rank: rank 9 in '9:1' is in no world of this sweep (accepted: a rank from 0 to 1)"},
      {{"sweep", "--groups", "1..2", "--test-only-hang-rank", "4:1"}, "--test-only-hang-rank: rank 4 in '4:1'"},
      // Summaries are checked before anything runs, like every other output.
      {{"compare", "a.json", "b.json", "--summary", "/nonexistent/dir/s.md"},
       "--summary: cannot write /nonexistent/dir/s.md: directory /nonexistent/dir does not exist"},
      {{"compare", "a.json", "b.json", "--summary", "/dev/full"}, "--summary: cannot write /dev/full: it is a device"},
      {{"gate", "--baseline", "base.json", "--summary", "/"}, "--summary: cannot write /: it is a directory"},
      {{"accept", "--profile", "/nonexistent/p.yaml", "--summary", "/"}, "/nonexistent/p.yaml"},
  };
  for (const auto& c : cases) {
    CliRunner cli;
    CliResult r = cli.Run(c.args);
    std::string cmd;
    for (const auto& a : c.args) cmd += a + " ";
    EXPECT_EQ(r.exit_code, 2) << cmd << r.err;
    EXPECT_EQ(Lines(r.err), 1) << cmd << r.err;
    EXPECT_EQ(r.err.rfind("commbench: error: ", 0), 0u) << cmd << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << cmd << "\n" << r.err;
    EXPECT_FALSE(std::ifstream(cli.dir() + "/commbench-results.json").good()) << cmd;
    ExpectNothingLeft(cli);
  }
}

TEST(CliTest, HelpHasExamples) {
  CliRunner cli;
  CliResult r = cli.Run({"sweep", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("commbench sweep --groups 1..8"), std::string::npos) << r.out;
}

// Starts a long sweep and waits until its rank processes run.
pid_t StartLongSweep(CliRunner* cli, std::vector<std::string> extra, std::vector<pid_t>* ranks) {
  std::vector<std::string> args = {"sweep", "--no-explain", "--no-html", "--groups",  "2", "--sizes",
                                   "64K",   "--iters",      "2000000",   "--timeout", "60"};
  args.insert(args.end(), extra.begin(), extra.end());
  pid_t driver = cli->Start(args);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    *ranks = CliRunner::Children(driver);
    if (ranks->size() == 4) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(700));  // into the timed loop
  return driver;
}

// --explain with nothing suspected (one group count: no growth to diagnose) runs no second phase and says so;
// the result file records that it ran and added nothing.
// --check-rate 1 checks every timed iteration, 0 only the first and last; the file records the rate.
TEST(CliTest, CheckRateDecidesHowManyIterationsAreChecked) {
  for (const auto& [rate, checked] : std::vector<std::pair<std::string, int>>{{"1", 30}, {"0", 2}}) {
    CliRunner cli;
    const std::string out = cli.dir() + "/r.json";
    CliResult r = cli.Run({"sweep", "--no-explain", "--no-html", "--groups", "1", "--sizes", "400", "--iters", "30",
                           "--warmup", "0", "--check-rate", rate, "--quiet", "-o", out});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json result = nlohmann::json::parse(std::ifstream(out));
    EXPECT_EQ(result["spec"]["check_rate"], std::stod(rate));
    EXPECT_EQ(result["points"][0]["checked_iters"], checked) << rate;
    for (const nlohmann::json& rank : result["points"][0]["per_rank"])
      EXPECT_EQ(rank["checked_iters"], checked) << rate;
    ExpectNothingLeft(cli);
  }
}

// --time-budget-above gives the large point a loop of its own: with an unreachable CI target every loop runs to
// twice its budget, 0.04 s at 400 B and 0.6 s at 1 MiB.
TEST(CliTest, ALongerBudgetAboveASizeTimesTheLargePointLonger) {
  CliRunner cli;
  const std::string out = cli.dir() + "/r.json";
  CliResult r = cli.Run({"sweep", "--no-explain", "--no-html", "--groups", "1", "--sizes", "400,1M", "--time-budget",
                         "0.02", "--time-budget-above", "1M=0.3", "--target-ci", "0.0001", "--quiet", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json result = nlohmann::json::parse(std::ifstream(out));
  ASSERT_EQ(result["points"].size(), 2u);
  EXPECT_LT(result["points"][0]["phases"]["timed"].get<double>(), 0.2) << result["points"][0]["phases"].dump();
  EXPECT_GE(result["points"][1]["phases"]["timed"].get<double>(), 0.3) << result["points"][1]["phases"].dump();
  EXPECT_EQ(result["spec"]["time_budget_above"], nlohmann::json::parse(R"([{"bytes":1048576,"seconds":0.3}])"));
  ExpectNothingLeft(cli);
}

// The first run gives the answer: a plain sweep runs the targeted A/Bs (the result's explain block) and writes the
// HTML report beside its JSON, printed last; --no-explain and --no-html skip them.
TEST(CliTest, DefaultSweepRunsTheAbsAndWritesTheReportBesideTheJson) {
  const std::vector<std::string> tiny = {"sweep",   "--backends", "native",  "--groups", "1..2",
                                         "--sizes", "4K",         "--iters", "20"};
  CliRunner cli;
  const std::string dir = cli.dir() + "/out";
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  std::vector<std::string> args = tiny;
  args.insert(args.end(), {"-o", dir + "/r.json"});
  CliResult r = cli.Run(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = dir + "/commbench-report.html";
  EXPECT_TRUE(std::ifstream(html).good()) << r.err;
  const std::string last = "commbench: wrote " + html + "\n";
  ASSERT_GE(r.err.size(), last.size());
  EXPECT_EQ(r.err.substr(r.err.size() - last.size()), last) << r.err;
  EXPECT_TRUE(nlohmann::json::parse(std::ifstream(dir + "/r.json")).contains("explain"));

  args = tiny;
  args.insert(args.end(), {"--no-explain", "--no-html", "-o", dir + "/plain.json"});
  ASSERT_EQ(::unlink(html.c_str()), 0);
  r = cli.Run(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(std::ifstream(html).good()) << r.err;
  EXPECT_EQ(r.err.find(".html"), std::string::npos) << r.err;
  EXPECT_FALSE(nlohmann::json::parse(std::ifstream(dir + "/plain.json")).contains("explain"));
  // A flag and its --no- form together are refused.
  EXPECT_EQ(cli.Run({"sweep", "--explain", "--no-explain"}).exit_code, 2);
  EXPECT_EQ(cli.Run({"sweep", "--html", html, "--no-html"}).exit_code, 2);
}

// What G groups cost in memory (issue 52), from real ranks: every point records its communicators' resident
// memory, each process once (ranks that share a process count as one), and G=4 holds more than G=1 on a backend
// that maps buffers per communicator (native's shm rings: about 90 KB per group on this VM).
TEST(CliTest, CommunicatorMemoryIsRecordedPerPointAndGrowsWithTheGroups) {
  CliRunner cli;
  const std::string out = cli.dir() + "/r.json";
  CliResult r = cli.Run({"sweep", "--backends", "native,gloo", "--groups", "1,4", "--sizes", "4K", "--iters", "10",
                         "--ranks-per-process", "1,2", "--no-explain", "--no-html", "--quiet", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json result = nlohmann::json::parse(std::ifstream(out));
  std::map<std::pair<std::string, int>, int64_t> native_rss;  // (ranks per process, G) -> bytes
  for (const nlohmann::json& p : result["points"]) {
    ASSERT_TRUE(p.contains("comm_memory")) << p["id"];
    const nlohmann::json& m = p["comm_memory"];
    const int world = p["world"], rpp = p["ranks_per_process"];
    EXPECT_EQ(m["processes"], world / rpp) << p["id"];
    EXPECT_EQ(m["groups"], p["groups"]) << p["id"];
    EXPECT_NEAR(m["rss_bytes_per_group"].get<double>(), m["rss_bytes"].get<double>() / p["groups"].get<int>(), 1e-6);
    EXPECT_FALSE(m.contains("device_bytes")) << "a CPU backend: " << p["id"];
    if (p["backend"] == "native") native_rss[{std::to_string(rpp), p["groups"].get<int>()}] = m["rss_bytes"];
  }
  ASSERT_EQ(native_rss.size(), 4u) << result["points"].dump();
  for (const std::string rpp : {"1", "2"}) {
    const int64_t one = native_rss[std::make_pair(rpp, 1)], four = native_rss[std::make_pair(rpp, 4)];
    EXPECT_GT(one, 0) << "ranks per process " << rpp;
    EXPECT_GT(four, one) << "ranks per process " << rpp;
  }
  ExpectNothingLeft(cli);
}

TEST(CliTest, ExplainWithNothingSuspectedRunsNothingMore) {
  CliRunner cli;
  const std::string out = cli.dir() + "/r.json";
  CliResult r = cli.Run(
      {"sweep", "--groups", "1", "--sizes", "400", "--iters", "4", "--warmup", "0", "--explain", "--quiet", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("commbench: --explain: nothing suspected: no A/B to run"), std::string::npos) << r.err;
  const nlohmann::json result = nlohmann::json::parse(std::ifstream(out));
  EXPECT_EQ(result["explain"], nlohmann::json::parse(R"({"first_phase_points": 1, "abs": []})")) << result["explain"];
  EXPECT_EQ(result["points"].size(), 1u);
  ExpectNothingLeft(cli);
}

TEST(CliTest, KilledRankIsNamedAndNothingIsLeftBehind) {
  CliRunner cli;
  std::vector<pid_t> ranks;
  pid_t driver = StartLongSweep(&cli, {}, &ranks);
  ASSERT_EQ(ranks.size(), 4u);
  pid_t victim = ranks[2];  // process index 2 runs rank 2
  kill(victim, SIGKILL);
  CliResult r = cli.Wait(driver);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("rank 2 (pid " + std::to_string(victim) +
                       ") was killed by SIGKILL during point "
                       "gloo/allreduce/auto/f32/sum/g2/k2/65536B"),
            std::string::npos)
      << r.err;
  std::ifstream f(cli.dir() + "/commbench-results.json");
  ASSERT_TRUE(f.good()) << "partial results must be written";
  nlohmann::json result = nlohmann::json::parse(f);
  EXPECT_EQ(result["status"], "partial");
  EXPECT_NE(result["failure"].get<std::string>().find("rank 2"), std::string::npos);
  ExpectNothingLeft(cli);
}

TEST(CliTest, TimeoutNamesTheSlowRankNotItsGroup) {
  CliRunner cli;
  // Rank 1 sleeps 3 s inside its first timed iteration; rank 0 completed it and waits in the barrier after it.
  // Group 1 finishes the point.
  CliResult r = cli.Run({"sweep", "--no-explain", "--no-html", "--groups", "2", "--sizes", "400", "--iters", "4",
                         "--warmup", "0", "--timeout", "1", "--test-only-slow-rank", "1:3000000"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("--timeout 1 s expired in point gloo/allreduce/auto/f32/sum/g2/k2/400B/in/sync=none: rank 1 "
                       "(pid "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("last completed timed iteration 0 (iteration 1 begun)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("; rank 0 waited"), std::string::npos) << r.err;
  ExpectNothingLeft(cli);
}

// A rank that stops mid-loop, outside any collective: the driver names it (pid, host, point, last completed
// iteration) from its progress page, not the whole group.
TEST(CliTest, TimeoutNamesTheHungRankWithItsPidAndIteration) {
  CliRunner cli;
  pid_t driver = cli.Start({"sweep", "--no-explain", "--no-html", "--groups", "2", "--sizes", "400", "--iters", "50",
                            "--warmup", "2", "--timeout", "2", "--test-only-hang-rank", "1:5"});
  std::vector<pid_t> ranks;
  for (auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
       ranks.size() < 4 && std::chrono::steady_clock::now() < deadline;
       std::this_thread::sleep_for(std::chrono::milliseconds(20))) {
    ranks = CliRunner::Children(driver);
  }
  ASSERT_EQ(ranks.size(), 4u);
  CliResult r = cli.Wait(driver);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  EXPECT_NE(r.err.find("--timeout 2 s expired in point gloo/allreduce/auto/f32/sum/g2/k2/400B/in/sync=none: rank 1 "
                       "(pid " +
                       std::to_string(ranks[1]) + ", host " + host +
                       ") stopped first: point gloo/allreduce/auto/f32/sum/g2/k2/400B/in/sync=none, last completed "
                       "timed iteration 4 (iteration 5 not begun), no progress for "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("; rank 0 waited"), std::string::npos) << r.err;
  ExpectNothingLeft(cli);
}

TEST(CliTest, InterruptStopsRanksAndWritesPartialResults) {
  CliRunner cli;
  std::vector<pid_t> ranks;
  pid_t driver = StartLongSweep(&cli, {}, &ranks);
  ASSERT_EQ(ranks.size(), 4u);
  kill(driver, SIGINT);
  CliResult r = cli.Wait(driver);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("interrupted by signal 2"), std::string::npos) << r.err;
  EXPECT_TRUE(std::ifstream(cli.dir() + "/commbench-results.json").good());
  for (pid_t p : ranks) EXPECT_NE(kill(p, 0), 0) << "rank process " << p << " survived";
  ExpectNothingLeft(cli);
}

// `commbench sweep 2>&1 | head`: once the reader has gone, the next progress line raises SIGPIPE. The run stops
// as on Ctrl-C (ranks stopped, partial results, temporary files removed) instead of dying with them behind.
TEST(CliTest, AClosedOutputPipeStopsTheRunCleanly) {
  CliRunner cli;
  int out = -1;
  pid_t driver = cli.StartPiped({"sweep", "--no-explain", "--no-html", "--groups", "2", "--sizes", "400,1M", "--iters",
                                 "3000", "--timeout", "60"},
                                &out);
  ASSERT_GT(driver, 0);
  std::string seen;
  char c;
  while (seen.find("world of") == std::string::npos && read(out, &c, 1) == 1) seen += c;
  ASSERT_NE(seen.find("world of"), std::string::npos) << seen;
  close(out);  // as `head` does once it has its lines
  CliResult r = cli.Wait(driver);
  EXPECT_EQ(r.exit_code, 1) << "128 + 13 would be death by SIGPIPE";
  nlohmann::json result = nlohmann::json::parse(std::ifstream(cli.dir() + "/commbench-results.json"));
  EXPECT_EQ(result["status"], "partial");
  ExpectNothingLeft(cli);
}

// OpenMPI's shared-memory files live in a private directory under /dev/shm that the driver removes, also when
// a rank is killed and mpirun cannot clean up after its job.
TEST(CliTest, KilledMpiRankLeavesNoSharedMemory) {
  if (!fs::exists("/usr/bin/mpirun")) GTEST_SKIP() << "OpenMPI is not installed";
  CliRunner cli;
  pid_t driver = cli.Start({"sweep", "--no-explain", "--no-html", "--backends", "mpi", "--launcher", "mpirun",
                            "--groups", "2", "--sizes", "64K", "--iters", "2000000", "--timeout", "60"});
  // Wait for the ranks (mpirun's children) and for their shared-memory files. The directory is the one this
  // driver gave its mpirun (its --mca btl_vader_backing_directory argument): another run of this test may hold
  // a commbench-* directory of its own at the same time.
  std::string ours;
  bool has_segments = false;
  pid_t victim = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline && (!has_segments || victim == 0)) {
    for (pid_t p : cli.Leftovers()) {  // mpirun and its ranks: a rank is not mpirun itself
      std::vector<std::string> argv = CommandLine(p);
      if (argv.empty()) continue;
      if (argv[0].find("mpirun") == std::string::npos) {
        victim = p;
        continue;
      }
      auto it = std::find(argv.begin(), argv.end(), "btl_vader_backing_directory");
      if (it != argv.end() && it + 1 != argv.end()) ours = *(it + 1);
    }
    std::error_code ec;
    if (!ours.empty()) {
      for (const auto& f : fs::directory_iterator(ours, ec)) {
        if (f.path().filename().string().rfind("vader_segment", 0) == 0) has_segments = true;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(ours.rfind("/dev/shm/commbench-", 0), 0u) << "mpirun was given no private directory: " << ours;
  ASSERT_TRUE(has_segments) << "no vader_segment files under " << ours;
  ASSERT_NE(victim, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  kill(victim, SIGKILL);
  CliResult r = cli.Wait(driver);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_FALSE(fs::exists(ours)) << ours << " left behind";
  ExpectNothingLeft(cli);
}

// A small result file of a real sweep, for the commands that read one.
std::string TinyResult(CliRunner* cli, const std::string& name) {
  const std::string out = cli->dir() + "/" + name;
  CliResult r = cli->Run({"sweep", "--no-explain", "--no-html", "--groups", "1", "--sizes", "400", "--iters", "4",
                          "--warmup", "0", "-q", "-o", out});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return out;
}

// --summary and $GITHUB_STEP_SUMMARY (appended to) are checked before anything is read or run: a FIFO (which
// would hang the run), a directory, a missing directory. A failed append (a full disk) is an error, not exit 0.
TEST(CliTest, SummariesAreCheckedFirstAndAFailedAppendIsAnError) {
  CliRunner cli;
  const std::string result = TinyResult(&cli, "r.json");
  const std::string fifo = cli.dir() + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  CliResult r = cli.Run({"compare", result, result, "--summary", fifo});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err, "commbench: error: --summary: cannot write " + fifo +
                       ": it is a FIFO (accepted: a regular file, or a path that does not exist yet)\n");
  const std::string profile = cli.dir() + "/p.yaml";
  std::ofstream(profile) << "name: p\nbackend: gloo\nops: allreduce\nsizes: [4K]\nrepeats: 1\ntime_budget_s: 30\n"
                            "phases: [cluster]\n";
  r = cli.Run({"accept", "--profile", profile, "--summary", fifo, "-o", cli.dir() + "/a.json"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err.rfind("commbench: error: --summary: cannot write " + fifo + ": it is a FIFO", 0), 0u) << r.err;
  EXPECT_FALSE(fs::exists(cli.dir() + "/a.json"));

  setenv("GITHUB_STEP_SUMMARY", cli.dir().c_str(), 1);  // inherited by the child
  r = cli.Run({"compare", result, result});
  unsetenv("GITHUB_STEP_SUMMARY");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err.rfind("commbench: error: $GITHUB_STEP_SUMMARY: cannot write " + cli.dir() + ": it is a directory", 0),
            0u)
      << r.err;
  // A step summary that does not exist yet is created.
  const std::string step = cli.dir() + "/step.md";
  setenv("GITHUB_STEP_SUMMARY", step.c_str(), 1);
  r = cli.Run({"compare", result, result});
  unsetenv("GITHUB_STEP_SUMMARY");
  EXPECT_EQ(r.exit_code, 3) << r.err;  // one repeat a side: inconclusive
  EXPECT_TRUE(fs::exists(step));

  const std::string full = cli.dir() + "/full";
  fs::create_directory(full);
  if (mount("tmpfs", full.c_str(), "tmpfs", 0, "size=64k") != 0) {
    GTEST_SKIP() << "cannot mount a tmpfs (" << std::strerror(errno) << "): needs root";
  }
  std::ofstream(full + "/filler") << std::string(1 << 20, 'x');  // fills it
  r = cli.Run({"compare", result, result, "--summary", full + "/s.md"});
  EXPECT_EQ(umount(full.c_str()), 0);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err, "commbench: error: cannot append to " + full + "/s.md: No space left on device\n");
  ExpectNothingLeft(cli);
}

// Rewriting an output keeps its mode (a private result stays private) and owner.
TEST(CliTest, ARewrittenResultKeepsItsMode) {
  CliRunner cli;
  const std::string result = TinyResult(&cli, "r.json");
  ASSERT_EQ(chmod(result.c_str(), 0600), 0);
  TinyResult(&cli, "r.json");
  struct stat st;
  ASSERT_EQ(stat(result.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  ExpectNothingLeft(cli);
}

// A SIGKILLed driver cannot clean up: its temporary directory and its outputs' temporary files stay. The next
// run in the same place removes them, and only them: a live run's directory stays.
TEST(CliTest, TheNextRunRemovesWhatAKilledDriverLeft) {
  CliRunner cli;
  std::vector<pid_t> ranks;
  const std::string out = cli.dir() + "/killed.json";
  pid_t killed = StartLongSweep(&cli, {"-o", out}, &ranks);
  ASSERT_EQ(ranks.size(), 4u);
  pid_t live = StartLongSweep(&cli, {"-o", cli.dir() + "/live.json"}, &ranks);
  ASSERT_EQ(ranks.size(), 4u);
  const std::string tag = "-" + std::to_string(killed) + "-";
  auto left_by_killed = [&] {
    std::vector<std::string> found;
    for (const std::string& e : cli.TempEntries()) {
      if (e.find("commbench" + tag) != std::string::npos) found.push_back(e);
    }
    for (const auto& f : fs::directory_iterator(cli.dir())) {
      if (f.path().filename().string().find(".tmp" + tag) != std::string::npos) found.push_back(f.path());
    }
    return found;
  };
  auto live_dirs = [&] {
    int n = 0;
    for (const std::string& e : cli.TempEntries())
      n += e.find("commbench-" + std::to_string(live) + "-") != std::string::npos;
    return n;
  };
  kill(killed, SIGKILL);
  EXPECT_EQ(cli.Wait(killed).exit_code, 128 + SIGKILL);
  // Its ranks die with it (PR_SET_PDEATHSIG); what it wrote stays.
  ASSERT_GE(left_by_killed().size(), 2u) << "expected its temporary directory and its result's temporary file";
  ASSERT_EQ(live_dirs(), 1);

  CliResult next = cli.Run({"sweep", "--no-explain", "--no-html", "--groups", "1", "--sizes", "400", "--iters", "4",
                            "--warmup", "0", "-q", "-o", out});
  EXPECT_EQ(next.exit_code, 0) << next.err;
  EXPECT_TRUE(left_by_killed().empty()) << left_by_killed().front();
  EXPECT_EQ(live_dirs(), 1) << "a live run's temporary directory was removed";

  kill(live, SIGINT);
  EXPECT_EQ(cli.Wait(live).exit_code, 1);
  ExpectNothingLeft(cli);
}

// SIGTERM while a large world is still being started: the start stops, every rank started so far is stopped,
// the temporary directory goes, exit 1, well within a few seconds (it once went on forking for over a minute).
TEST(CliTest, SigtermWhileStartingALargeWorldStopsPromptly) {
  CliRunner cli;
  pid_t driver = cli.Start({"sweep", "--no-explain", "--no-html", "--groups", "300", "--sizes", "400", "--iters", "10",
                            "--max-world", "1000", "--timeout", "60"});
  for (auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
       CliRunner::Children(driver).size() < 20 && std::chrono::steady_clock::now() < deadline;
       std::this_thread::sleep_for(std::chrono::milliseconds(10))) {
  }
  ASSERT_GE(CliRunner::Children(driver).size(), 20u);
  const auto sent = std::chrono::steady_clock::now();
  kill(driver, SIGTERM);
  CliResult r = cli.Wait(driver);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("interrupted by signal 15"), std::string::npos) << r.err;
  EXPECT_LT(took, 5.0) << r.err;  // generous: it takes about 0.1 s on a loaded 2-core host
  ExpectNothingLeft(cli);
}

}  // namespace
}  // namespace commbench::testing
