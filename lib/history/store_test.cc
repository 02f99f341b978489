#include "lib/history/store.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "lib/core/temp_dir.h"

namespace commbench::history {
namespace {

using nlohmann::json;

const char kReal[] = "reports/testdata/real_sweep_g1-4.json";

json ReadJson(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

std::string WriteVariant(const std::string& dir, const std::string& name, const std::string& cpu) {
  json j = ReadJson(kReal);
  if (!cpu.empty()) j["environment"]["cpu_model"] = cpu;
  const std::string path = dir + "/" + name;
  std::ofstream(path) << j.dump();
  return path;
}

// A copy of the committed fixture (runfiles are links, and a store's files are read only as its own regular files).
std::string CopyOfV1(const TempDir& tmp) {
  const std::string dir = tmp.path() + "/v1";
  std::filesystem::copy("lib/history/testdata/v1", dir, std::filesystem::copy_options::recursive);
  return dir;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(Store, AddFilesTheResultWithCommitTimeAndFingerprint) {
  TempDir tmp("history-test-");
  const std::string dir = tmp.path() + "/h";
  auto e = AddRun(dir, {kReal, "abc123", "2026-11-01T00:00:00Z"});
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(e->id, "000000-abc123");
  EXPECT_EQ(e->fingerprint.size(), 16u);
  auto h = LoadHistory(dir);
  ASSERT_TRUE(h.ok()) << h.status().message();
  ASSERT_EQ(h->runs.size(), 1u);
  EXPECT_EQ(h->runs[0].commit, "abc123");
  EXPECT_EQ(h->runs[0].time, "2026-11-01T00:00:00Z");
  EXPECT_TRUE(LoadRun(dir, h->runs[0]).ok());
  // Defaults: the result's own commit and start time.
  auto d = AddRun(dir, {kReal, "", ""});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->seq, 1);
  EXPECT_FALSE(d->commit.empty());
  EXPECT_EQ(d->time, ReadJson(kReal)["started_at"].get<std::string>());
}

TEST(Store, RunnersWithDifferentFingerprintsAreKeptApart) {
  TempDir tmp("history-test-");
  auto a = AddRun(tmp.path() + "/h", {WriteVariant(tmp.path(), "a.json", "CPU A"), "c1", ""});
  auto b = AddRun(tmp.path() + "/h", {WriteVariant(tmp.path(), "b.json", "CPU B"), "c1", ""});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a->fingerprint, b->fingerprint);
  EXPECT_NE(a->file.substr(0, 22), b->file.substr(0, 22));  // runs/FINGERPRINT/
  // The host name is not part of it (CI runners differ by name).
  json j = ReadJson(kReal);
  json k = j;
  k["environment"]["host"] = "another-runner";
  EXPECT_EQ(RunnerFingerprint(j["environment"]), RunnerFingerprint(k["environment"]));
  // No CPU limit recorded as none keeps the runner's key; a limit makes another runner.
  k["environment"]["cpu_quota"] = nullptr;
  EXPECT_EQ(RunnerFingerprint(j["environment"]), RunnerFingerprint(k["environment"]));
  k["environment"]["cpu_quota"] = 0.5;
  EXPECT_NE(RunnerFingerprint(j["environment"]), RunnerFingerprint(k["environment"]));
}

TEST(Store, TwoConcurrentAddersBothLand) {
  TempDir tmp("history-test-");
  const std::string dir = tmp.path() + "/h";
  constexpr int kEach = 15;
  pid_t kids[2];
  for (int k = 0; k < 2; ++k) {
    kids[k] = fork();
    if (kids[k] == 0) {
      for (int i = 0; i < kEach; ++i) {
        if (!AddRun(dir, {kReal, "job" + std::to_string(k), ""}).ok()) _exit(1);
      }
      _exit(0);
    }
  }
  for (pid_t kid : kids) {
    int status = 0;
    waitpid(kid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  auto h = LoadHistory(dir);
  ASSERT_TRUE(h.ok());
  ASSERT_EQ(h->runs.size(), 2u * kEach);
  std::set<std::string> ids, files;
  for (const RunEntry& e : h->runs) {
    ids.insert(e.id);
    files.insert(e.file);
    EXPECT_TRUE(LoadRun(dir, e).ok()) << e.file;
  }
  EXPECT_EQ(ids.size(), 2u * kEach);
  EXPECT_EQ(files.size(), 2u * kEach);
}

TEST(Store, BadInputWritesNothing) {
  TempDir tmp("history-test-");
  const std::string bad = tmp.path() + "/bad.json";
  std::ofstream(bad) << "{\"points\": [";
  EXPECT_FALSE(AddRun(tmp.path() + "/h", {bad, "", ""}).ok());
  EXPECT_NE(access((tmp.path() + "/h").c_str(), F_OK), 0);
  EXPECT_EQ(LoadHistory(tmp.path() + "/none").status().code(), StatusCode::kNotFound);
}

TEST(Store, NewerSchemaRefusedOlderRead) {
  json j = {{"kind", "commbench history"}, {"schema_version", kHistorySchemaVersion + 1}, {"runs", json::array()}};
  auto h = HistoryFromJson(j, "x/history.json");
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.status().message().find("schema_version"), std::string::npos);
  j["schema_version"] = 1;
  j["a_field_a_later_version_added"] = 1;
  EXPECT_TRUE(HistoryFromJson(j, "x").ok());
}

// A history written by this version (lib/history/testdata/v1, made by `commbench history add`): every later
// version must keep reading it.
TEST(Store, ReadsTheCommittedVersion1History) {
  TempDir tmp("history-test-");
  const std::string dir = CopyOfV1(tmp);
  auto h = LoadHistory(dir);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->schema_version, 1);
  ASSERT_GE(h->runs.size(), 2u);
  for (const RunEntry& e : h->runs) EXPECT_TRUE(LoadRun(dir, e).ok()) << e.file;
}

TEST(Store, HostileCommitsAreEncodedIntoOneNameAndTheHistoryStaysReadable) {
  for (const std::string& commit : std::vector<std::string>{"main..feature", "..", "a/../../b", "/abs", "line\nbreak",
                                                            "%2e%2e", std::string(300, 'x'), std::string("\xff\xfe")}) {
    TempDir tmp("history-test-");
    const std::string dir = tmp.path() + "/h";
    auto e = AddRun(dir, {kReal, commit, ""});
    ASSERT_TRUE(e.ok()) << e.status().message();
    EXPECT_EQ(e->file.find('/', 5), 5 + 16u) << e->file;  // runs/FINGERPRINT/NAME
    EXPECT_EQ(e->file.find('/', 22), std::string::npos) << e->file;
    EXPECT_LE(e->id.size(), 7u + 60u);
    auto next = AddRun(dir, {kReal, "plain", ""});
    ASSERT_TRUE(next.ok()) << commit << ": " << next.status().message();
    auto h = LoadHistory(dir);
    ASSERT_TRUE(h.ok()) << h.status().message();
    for (const RunEntry& r : h->runs) EXPECT_TRUE(LoadRun(dir, r).ok()) << r.file;
  }
}

TEST(Store, APlantedLinkIsNeverWrittenThrough) {
  TempDir tmp("history-test-");
  const std::string dir = tmp.path() + "/h", target = tmp.path() + "/target";
  auto e = AddRun(dir, {kReal, "c0", ""});
  ASSERT_TRUE(e.ok());
  const std::string next = dir + "/runs/" + e->fingerprint + "/000001-c1.json";
  for (const std::string& at : std::vector<std::string>{dir + "/history.json", dir + "/history.lock", next}) {
    std::ofstream(target) << "precious";
    const std::string saved = at + ".saved";
    rename(at.c_str(), saved.c_str());
    ASSERT_EQ(symlink(target.c_str(), at.c_str()), 0);
    auto r = AddRun(dir, {kReal, "c1", ""});
    EXPECT_FALSE(r.ok()) << at;
    EXPECT_EQ(Slurp(target), "precious") << at;
    unlink(at.c_str());
    rename(saved.c_str(), at.c_str());
  }
  // A link at a filed run: the check's reader refuses it (never /dev/zero, never another file).
  auto h = LoadHistory(dir);
  ASSERT_TRUE(h.ok());
  const std::string run = dir + "/" + h->runs[0].file;
  unlink(run.c_str());
  ASSERT_EQ(symlink("/dev/zero", run.c_str()), 0);
  auto loaded = LoadRun(dir, h->runs[0]);
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find("symlink"), std::string::npos) << loaded.status().message();
}

TEST(Store, ALostOrStaleIndexNeverReusesARunsName) {
  TempDir tmp("history-test-");
  const std::string dir = tmp.path() + "/h";
  std::vector<RunEntry> filed;
  for (int i = 0; i < 3; ++i) filed.push_back(*AddRun(dir, {kReal, "c" + std::to_string(i), ""}));
  std::vector<std::string> before;
  for (const RunEntry& e : filed) before.push_back(Slurp(dir + "/" + e.file));
  ASSERT_EQ(unlink((dir + "/history.json").c_str()), 0);
  auto e = AddRun(dir, {kReal, "c3", ""});
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(e->seq, 3);
  for (size_t i = 0; i < filed.size(); ++i) EXPECT_EQ(Slurp(dir + "/" + filed[i].file), before[i]);
  // Stale: the index of a moment ago, with runs on disk it does not list.
  const std::string stale = Slurp(dir + "/history.json");
  ASSERT_TRUE(AddRun(dir, {kReal, "c4", ""}).ok());
  std::ofstream(dir + "/history.json") << stale;
  auto again = AddRun(dir, {kReal, "c4", ""});
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->seq, 5);
}

TEST(Store, SeqsAre64BitAndNeverWrap) {
  TempDir tmp("history-test-");
  const std::string dir = tmp.path() + "/h";
  ASSERT_TRUE(AddRun(dir, {kReal, "c0", ""}).ok());
  json j = ReadJson(dir + "/history.json");
  j["runs"][0]["seq"] = int64_t{1} << 40;
  std::ofstream(dir + "/history.json") << j.dump();
  auto e = AddRun(dir, {kReal, "c1", ""});
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(e->seq, (int64_t{1} << 40) + 1);
  EXPECT_EQ(e->id, "1099511627777-c1");
  auto h = LoadHistory(dir);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->runs[1].seq, (int64_t{1} << 40) + 1);
  j = ReadJson(dir + "/history.json");
  j["runs"][1]["seq"] = std::numeric_limits<int64_t>::max();
  std::ofstream(dir + "/history.json") << j.dump();
  auto none = AddRun(dir, {kReal, "c2", ""});
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("9223372036854775807"), std::string::npos) << none.status().message();
  for (const char* seq : {"9223372036854775808", "18446744073709551615", "-1", "1.5", "\"3\""}) {
    std::string text = j.dump();
    const std::string at = "\"seq\":" + std::to_string(std::numeric_limits<int64_t>::max());
    text.replace(text.find(at), at.size(), std::string("\"seq\":") + seq);
    std::ofstream(dir + "/history.json") << text;
    auto bad = LoadHistory(dir);
    ASSERT_FALSE(bad.ok()) << seq;
    EXPECT_NE(bad.status().message().find(".seq"), std::string::npos) << bad.status().message();
  }
}

TEST(Store, FilePathsAreCheckedPerComponent) {
  json j = {{"kind", "commbench history"}, {"schema_version", 1}};
  for (const std::string& file : std::vector<std::string>{"runs/fp/000001-main..feature.json", "runs/fp/x..y", "a/b"}) {
    j["runs"] = {{{"seq", 1}, {"id", "x"}, {"file", file}, {"fingerprint", "fp"}}};
    EXPECT_TRUE(HistoryFromJson(j, "h").ok()) << file;
  }
  for (const std::string& file :
       std::vector<std::string>{"../x.json", "runs/../../x", "/etc/passwd", "runs//x", "./x", "runs/fp/", "runs/."}) {
    j["runs"] = {{{"seq", 1}, {"id", "x"}, {"file", file}, {"fingerprint", "fp"}}};
    EXPECT_FALSE(HistoryFromJson(j, "h").ok()) << file;
  }
}

}  // namespace
}  // namespace commbench::history
