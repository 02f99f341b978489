#include "lib/history/store.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

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
  const std::string dir = "lib/history/testdata/v1";
  auto h = LoadHistory(dir);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->schema_version, 1);
  ASSERT_GE(h->runs.size(), 2u);
  for (const RunEntry& e : h->runs) EXPECT_TRUE(LoadRun(dir, e).ok()) << e.file;
}

}  // namespace
}  // namespace commbench::history
