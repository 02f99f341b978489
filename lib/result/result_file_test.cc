#include "lib/result/result_file.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "lib/core/temp_dir.h"
#include "lib/model/point_json.h"
#include "lib/result/result_writer.h"
#include "lib/result/spec_reader.h"

namespace commbench::result {
namespace {

using nlohmann::json;

json LoadJson(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

// Files written before the typed model (schema_version 1) must keep loading.
constexpr const char* kOldFiles[] = {"reports/testdata/real_sweep_g1-4.json",
                                     "reports/testdata/sweep_before_typed_model.json",
                                     "reports/testdata/fixture_scenario_a.json", "reports/testdata/fixture_small.json"};

TEST(ResultFileTest, LoadsFilesWrittenBeforeTheTypedModel) {
  for (const char* path : kOldFiles) {
    auto file = LoadResultFile(path);
    ASSERT_TRUE(file.ok()) << path << ": " << file.status().message();
    EXPECT_FALSE(file->points.empty()) << path;
    EXPECT_FALSE(file->header.environment.affinity.empty()) << path;
  }
}

// Rounds every raw sample as the writer does (to the nanosecond).
void RoundSamples(json* result) {
  for (json& p : (*result)["points"]) {
    for (json& rank : p["samples_us"]["per_rank"]) {
      for (json& t : rank) t = RoundToNanosecond(t.get<double>());
    }
  }
}

// The last file the untyped writer produced (commbench at 1b287d0, `sweep --groups 1..3 --sizes 400,64K
// --time-budget 0.05`) reads and writes back to the same document.
// Reads `path` into `file` and returns what writing it back must give: the same document with the samples
// rounded to the nanosecond, the current schema_version and the (empty) list of excluded points.
json ExpectedWriteBack(const std::string& path, StatusOr<ResultFile>* file) {
  json original = LoadJson(path);
  *file = ReadResultFile(original);
  RoundSamples(&original);
  original["schema_version"] = kSchemaVersion;
  original.emplace("excluded_points", json::array());  // schema_version 2 names the points it left out
  // Checked iterations, recorded since: read as 0.
  for (json& p : original["points"]) {
    p.emplace("checked_iters", 0);
    for (json& r : p["per_rank"]) r.emplace("checked_iters", 0);
  }
  original["spec"].emplace("test_only_hang_rank", "");
  original["spec"].emplace("repeats", 1);  // schema_version 3: one repeat before --repeats existed
  original["spec"].emplace("test_only_uniform_slowdown", 0.0);
  original["spec"].emplace("check_rate", 1.0 / 64);  // the rate those runs checked at, before it was a flag
  return original;
}

TEST(ResultFileTest, WritesBackTheLastUntypedFile) {
  StatusOr<ResultFile> file = Status();
  json original = ExpectedWriteBack("reports/testdata/sweep_before_typed_model.json", &file);
  ASSERT_TRUE(file.ok()) << file.status().message();
  // The untyped writer wrote the fits' group counts as 1.0, 2.0, ...: the same numbers.
  json again = ResultFileToJson(*file);
  for (json& f : again["fits"]) {
    for (json& g : f["groups"]) g = g.get<double>();
  }
  const json diff = json::diff(original, again);
  EXPECT_TRUE(diff.empty()) << diff.dump(1).substr(0, 2000);
}

TEST(ResultFileTest, WritesBackWhatItRead) {
  StatusOr<ResultFile> file = Status();
  json original = ExpectedWriteBack("reports/testdata/real_sweep_g1-4.json", &file);
  ASSERT_TRUE(file.ok()) << file.status().message();
  // The keys this file predates.
  for (const char* list : {"points", "fits"}) {
    for (json& p : original[list]) p.emplace("concurrency", "concurrent");
  }
  original["spec"].emplace("concurrencies", json::array({"concurrent"}));
  original["spec"].emplace("explain_factors", json::array());
  const json diff = json::diff(original, ResultFileToJson(*file));
  EXPECT_TRUE(diff.empty()) << diff.dump(1).substr(0, 2000);
}

TEST(ResultFileTest, StreamedFileIsTheSameDocument) {
  auto file = ReadResultFile(LoadJson("reports/testdata/real_sweep_g1-4.json"));
  ASSERT_TRUE(file.ok()) << file.status().message();
  TempDir dir("result-");
  const std::string path = dir.path() + "/r.json";
  auto writer = ResultFileWriter::Open(path, file->header);
  ASSERT_TRUE(writer.ok()) << writer.status().message();
  for (PointResult p : file->points) ASSERT_TRUE((*writer)->AppendPoint(&p).ok());
  ASSERT_TRUE((*writer)->Finish(file->trailer).ok());
  // The samples went to the sidecar; with them put back it is the same document.
  const json written = LoadJson(path);
  EXPECT_EQ(written["points"][0]["samples_us"], json({{"cap", 20}, {"file", "r.samples.jsonl"}}));
  auto back = LoadResultFile(path);
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_TRUE(LoadSamples(path, &*back).ok());
  const json diff = json::diff(ResultFileToJson(*back), ResultFileToJson(*file));
  EXPECT_TRUE(diff.empty()) << diff.dump(1).substr(0, 2000);

  // No point at all (a run that failed in its first point) is still one valid document.
  auto empty = ResultFileWriter::Open(path, file->header);
  ASSERT_TRUE(empty.ok());
  ASSERT_TRUE((*empty)->Finish(file->trailer).ok());
  EXPECT_TRUE(LoadJson(path)["points"].empty());
}

// schema_version 3: a point's independent repeats (sweep --repeats) write and read back, streamed too; a file of
// version 2 (no repeats) reads each entry as one repeat.
TEST(ResultFileTest, RepeatsRoundTrip) {
  auto file = ReadResultFile(LoadJson("reports/testdata/real_sweep_g1-4.json"));
  ASSERT_TRUE(file.ok()) << file.status().message();
  EXPECT_EQ(file->header.spec.repeats, 1);
  EXPECT_EQ(RepeatMedians(file->points[0]), std::vector<double>{file->points[0].time_us.p50});
  file->header.spec.repeats = 3;
  file->points[0].repeat_p50_us = {10.5, 11.25, 9.75};
  file->points[0].repeat_mean_us = {12, 13, 11.5};
  const json j = ResultFileToJson(*file);
  EXPECT_EQ(j["schema_version"], kSchemaVersion);
  EXPECT_EQ(j["points"][0]["repeats"], json({{"n", 3}, {"p50_us", {10.5, 11.25, 9.75}}, {"mean_us", {12, 13, 11.5}}}));
  EXPECT_FALSE(j["points"][1].contains("repeats"));
  auto back = ReadResultFile(j);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->header.spec.repeats, 3);
  EXPECT_EQ(RepeatMedians(back->points[0]), (std::vector<double>{10.5, 11.25, 9.75}));
  EXPECT_EQ(back->points[0].repeat_mean_us, (std::vector<double>{12, 13, 11.5}));
  EXPECT_TRUE(json::diff(ResultFileToJson(*back), j).empty());
  // --time-budget-above's entries read back as they were written.
  file->header.spec.time_budget_above = {{1 << 20, 0.4}};
  auto budgets = ReadResultFile(ResultFileToJson(*file));
  ASSERT_TRUE(budgets.ok()) << budgets.status().message();
  EXPECT_EQ(budgets->header.spec.time_budget_above, (std::map<uint64_t, double>{{1 << 20, 0.4}}));

  TempDir dir("result-");
  const std::string path = dir.path() + "/r.json";
  auto writer = ResultFileWriter::Open(path, file->header);
  ASSERT_TRUE(writer.ok()) << writer.status().message();
  for (PointResult p : file->points) ASSERT_TRUE((*writer)->AppendPoint(&p).ok());
  ASSERT_TRUE((*writer)->Finish(file->trailer).ok());
  auto streamed = LoadResultFile(path);
  ASSERT_TRUE(streamed.ok()) << streamed.status().message();
  EXPECT_EQ(streamed->points[0].repeat_p50_us, (std::vector<double>{10.5, 11.25, 9.75}));

  json bad = j;
  bad["points"][0]["repeats"]["n"] = 4;
  auto refused = ReadResultFile(bad);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(), "points[0].repeats.n: 4 repeats, but 3 p50_us and 3 mean_us values");
  bad = j;
  bad["points"][0]["repeats"]["p50_us"][1] = "fast";
  refused = ReadResultFile(bad);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(), "points[0].repeats.p50_us[1]: expected a number, got a string");
}

// per_rank[].transport: written where the rank reported the transport it used, absent otherwise (older files,
// backends that do not say), and read back as it was.
TEST(ResultFileTest, RankTransportRoundTripsWhereReported) {
  auto file = ReadResultFile(LoadJson("reports/testdata/real_sweep_g1-4.json"));
  ASSERT_TRUE(file.ok()) << file.status().message();
  ASSERT_GE(file->points[0].per_rank.size(), 2u);
  EXPECT_EQ(file->points[0].per_rank[0].transport, Transport::kUnknown);
  file->points[0].per_rank[0].transport = Transport::kTcp;
  const json j = ResultFileToJson(*file);
  EXPECT_EQ(j["points"][0]["per_rank"][0]["transport"], "tcp");
  EXPECT_FALSE(j["points"][0]["per_rank"][1].contains("transport"));
  auto back = ReadResultFile(j);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->points[0].per_rank[0].transport, Transport::kTcp);
  EXPECT_EQ(back->points[0].per_rank[1].transport, Transport::kUnknown);
  EXPECT_TRUE(json::diff(ResultFileToJson(*back), j).empty());
  json bad = j;
  bad["points"][0]["per_rank"][0]["transport"] = "rdma";
  auto refused = ReadResultFile(bad);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message().rfind("points[0].per_rank[0].transport: unknown value 'rdma'", 0), 0u)
      << refused.status().message();
}

// per_rank[].process_rank: written where recorded, absent in older files (read as -1), read back as it was.
TEST(ResultFileTest, ProcessRankRoundTripsWhereRecorded) {
  auto file = ReadResultFile(LoadJson("reports/testdata/real_sweep_g1-4.json"));
  ASSERT_TRUE(file.ok()) << file.status().message();
  ASSERT_GE(file->points[0].per_rank.size(), 2u);
  EXPECT_EQ(file->points[0].per_rank[0].process_rank, -1);
  file->points[0].per_rank[0].process_rank = 5;
  const json j = ResultFileToJson(*file);
  EXPECT_EQ(j["points"][0]["per_rank"][0]["process_rank"], 5);
  EXPECT_FALSE(j["points"][0]["per_rank"][1].contains("process_rank"));
  auto back = ReadResultFile(j);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->points[0].per_rank[0].process_rank, 5);
  EXPECT_EQ(back->points[0].per_rank[1].process_rank, -1);
}

// cpu.migrations and per_rank[].migrations: written where recorded (0 included), absent in older files (read as
// -1, and written back absent), read back as they were.
TEST(ResultFileTest, MigrationsRoundTripWhereRecorded) {
  auto file = ReadResultFile(LoadJson("reports/testdata/real_sweep_g1-4.json"));
  ASSERT_TRUE(file.ok()) << file.status().message();
  ASSERT_GE(file->points[0].per_rank.size(), 2u);
  EXPECT_EQ(file->points[0].cpu.migrations, -1);
  EXPECT_EQ(file->points[0].per_rank[0].migrations, -1);
  EXPECT_FALSE(ResultFileToJson(*file)["points"][0]["cpu"].contains("migrations"));
  file->points[0].cpu.migrations = 3;
  file->points[0].per_rank[0].migrations = 3;
  file->points[0].per_rank[1].migrations = 0;
  const json j = ResultFileToJson(*file);
  EXPECT_EQ(j["points"][0]["cpu"]["migrations"], 3);
  EXPECT_EQ(j["points"][0]["per_rank"][0]["migrations"], 3);
  EXPECT_EQ(j["points"][0]["per_rank"][1]["migrations"], 0);
  EXPECT_FALSE(j["points"][1]["per_rank"][0].contains("migrations"));
  auto back = ReadResultFile(j);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->points[0].cpu.migrations, 3);
  EXPECT_EQ(back->points[0].per_rank[0].migrations, 3);
  EXPECT_EQ(back->points[0].per_rank[1].migrations, 0);
  EXPECT_EQ(back->points[1].per_rank[0].migrations, -1);
  EXPECT_TRUE(json::diff(ResultFileToJson(*back), j).empty());
  json bad = j;
  bad["points"][0]["cpu"]["migrations"] = -2;
  auto refused = ReadResultFile(bad);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("points[0].cpu.migrations"), std::string::npos)
      << refused.status().message();
}

// Issue 52's transfer, arrival skew and busy time: absent in older files (and written back absent), read back as
// written; a method other than clock or durations is an error naming the field.
TEST(ResultFileTest, ArrivalAndBusyTimeRoundTripWhereRecorded) {
  auto file = ReadResultFile(LoadJson("reports/testdata/real_sweep_g1-4.json"));
  ASSERT_TRUE(file.ok()) << file.status().message();
  EXPECT_FALSE(file->points[0].arrival.has_value());
  EXPECT_FALSE(file->points[0].busy_time.has_value());
  EXPECT_FALSE(ResultFileToJson(*file)["points"][0].contains("arrival"));
  result::Arrival a;
  a.method = result::SkewMethod::kDurations;
  a.transfer_us = Summarize({10, 11, 12});
  a.skew_us = Summarize({2000, 2001, 2002});
  file->points[0].arrival = a;
  file->points[0].busy_time = result::BusyTime{0.25, 1.5, 2.25};
  file->points[0].per_group[0].transfer_p50_us = 11;
  file->points[0].per_group[0].skew_p50_us = 2001;
  const json j = ResultFileToJson(*file);
  EXPECT_EQ(j["points"][0]["arrival"]["method"], "durations");
  EXPECT_EQ(j["points"][0]["arrival"]["skew_us"]["p99"], a.skew_us.p99);
  EXPECT_EQ(j["points"][0]["busy_time"]["aggregate_busbw_gbps"], 2.25);
  EXPECT_EQ(j["points"][0]["per_group"][0]["skew_p50_us"], 2001);
  auto back = ReadResultFile(j);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->points[0].arrival->method, result::SkewMethod::kDurations);
  EXPECT_EQ(back->points[0].arrival->transfer_us.p50, 11);
  EXPECT_EQ(back->points[0].busy_time->union_s, 0.25);
  EXPECT_EQ(*back->points[0].per_group[0].transfer_p50_us, 11);
  EXPECT_FALSE(back->points[1].arrival.has_value());
  EXPECT_TRUE(json::diff(ResultFileToJson(*back), j).empty());
  json bad = j;
  bad["points"][0]["arrival"]["method"] = "guess";
  auto refused = ReadResultFile(bad);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("points[0].arrival.method"), std::string::npos)
      << refused.status().message();
}

// The record of several repeats: the last one's, with each repeat's p50 and mean, wrong when any repeat was.
TEST(ResultFileTest, CombineRepeatsKeepsEveryRepeat) {
  auto file = ReadResultFile(LoadJson("reports/testdata/real_sweep_g1-4.json"));
  ASSERT_TRUE(file.ok()) << file.status().message();
  std::vector<PointResult> repeats(3, file->points[0]);
  for (int r = 0; r < 3; ++r) {
    repeats[r].time_us.p50 = 100 + r;
    repeats[r].time_us.mean = 200 + r;
    repeats[r].iters = 10 + r;
  }
  repeats[1].correct = false;
  repeats[1].errors = {"rank 1: timed iteration 3 (sampled): wrong"};
  PointResult one = CombineRepeats(repeats);
  EXPECT_EQ(one.repeat_p50_us, (std::vector<double>{100, 101, 102}));
  EXPECT_EQ(one.repeat_mean_us, (std::vector<double>{200, 201, 202}));
  EXPECT_EQ(one.iters, 12);  // the last repeat's record
  EXPECT_FALSE(one.correct);
  EXPECT_EQ(one.errors, std::vector<std::string>{"repeat 2: rank 1: timed iteration 3 (sampled): wrong"});
  // Combining records that already hold repeats keeps all of them, in order.
  PointResult more = CombineRepeats({one, repeats[0]});
  EXPECT_EQ(more.repeat_p50_us, (std::vector<double>{100, 101, 102, 100}));
  EXPECT_EQ(more.repeat_mean_us, (std::vector<double>{200, 201, 202, 200}));
  EXPECT_TRUE(more.correct == false);
}

std::string ErrorFor(const std::function<void(json&)>& break_it) {
  json j = LoadJson("reports/testdata/real_sweep_g1-4.json");
  break_it(j);
  auto file = ReadResultFile(j);
  return file.ok() ? "(read fine)" : file.status().message();
}

TEST(ResultFileTest, ASchemaViolationIsOneErrorNamingTheField) {
  EXPECT_EQ(ErrorFor([](json& j) { j["points"][2]["time_us"]["p50"] = "12"; }),
            "points[2].time_us.p50: expected a number, got a string");
  EXPECT_EQ(ErrorFor([](json& j) { j["points"][0]["groups"] = -1; }),
            "points[0].groups: invalid value -1 (accepted: an integer >= 1)");
  EXPECT_EQ(ErrorFor([](json& j) { j.erase("points"); }), "points: missing");
  EXPECT_EQ(ErrorFor([](json& j) { j["points"][1]["world"] = 7; }).rfind("points[1].world: 7 is not", 0), 0u);
  EXPECT_EQ(ErrorFor([](json& j) { j["points"][0]["sync"] = "sometimes"; }).rfind("points[0]: ", 0), 0u);
  EXPECT_EQ(ErrorFor([](json& j) { j["verdict"] = "maybe"; }).rfind("verdict: unknown value 'maybe'", 0), 0u);
  EXPECT_EQ(ErrorFor([](json& j) { j["findings"][0]["evidence"] = 3; }),
            "findings[0].evidence: expected an array, got an integer");
  EXPECT_EQ(ErrorFor([](json& j) { j["schema_version"] = 5; }),
            "unsupported schema_version 5 (this commbench reads 1 to 4)");
  EXPECT_EQ(ErrorFor([](json& j) { j = json::array(); }), "(top level): expected an object, got an array");
}

// --explain's record of what its second phase added, written and read back; a bad factor names its field.
TEST(ResultFileTest, ExplainRecordRoundTrips) {
  auto file = ReadResultFile(LoadJson("reports/testdata/real_sweep_g1-4.json"));
  ASSERT_TRUE(file.ok()) << file.status().message();
  EXPECT_FALSE(file->trailer.explain.has_value());
  EXPECT_FALSE(ResultFileToJson(*file).contains("explain"));  // absent without --explain
  ExplainAb ab;
  ab.rule = "world_barrier";
  ab.factor.syncs = {Sync::kNone};
  ab.reason = "--sync none: the A/B for a world-wide barrier per iteration";
  ab.series = {file->points[0].id, file->points[1].id};
  ab.points = {"gloo/allreduce/auto/f32/sum/g1/k2/400B/in/sync=none"};
  file->trailer.explain = ExplainRecord{4, {ab}};
  const json written = ResultFileToJson(*file);
  EXPECT_EQ(written["explain"]["first_phase_points"], 4);
  EXPECT_EQ(written["explain"]["abs"][0]["factor"], json::parse(R"([["sync", "none"]])"));
  auto back = ReadResultFile(written);
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_TRUE(back->trailer.explain.has_value());
  EXPECT_EQ(ResultFileToJson(*back), written);

  json bad = written;
  bad["explain"]["abs"][0]["factor"] = json::parse(R"([["sync", "sometimes"]])");
  auto error = ReadResultFile(bad);
  ASSERT_FALSE(error.ok());
  EXPECT_EQ(error.status().message().rfind("explain.abs[0].factor: unknown sync 'sometimes'", 0), 0u)
      << error.status().message();
}

// Found by the fuzz targets (fuzz/): each was a crash, a silent truncation or a value that could not be written
// back.
TEST(ResultFileTest, FuzzFindingsAreSchemaErrors) {
  EXPECT_EQ(ErrorFor([](json& j) { j.erase("environment"); }), "environment: missing");
  EXPECT_EQ(ErrorFor([](json& j) { j["schema_version"] = 4294967298; }),
            "schema_version: invalid value 4294967298 (too large)");
  EXPECT_EQ(ErrorFor([](json& j) { j["points"][0]["per_rank"][0]["pid"] = 42429496729642; }),
            "points[0].per_rank[0].pid: invalid value 42429496729642 (too large)");
  EXPECT_EQ(ErrorFor([](json& j) { j["fits"][0]["groups"][0] = 18446744073709551615ull; }),
            "fits[0].groups[0]: expected an integer >= 1 and <= 2147483647, got 18446744073709551615");
  EXPECT_EQ(ErrorFor([](json& j) { j["fits"][0]["groups"][0] = 1e300; }),
            "fits[0].groups[0]: expected an integer >= 1 and <= 2147483647, got 1e+300");
}

TEST(ResultFileTest, HugeValuesWriteBack) {
  json j = LoadJson("reports/testdata/real_sweep_g1-4.json");
  j["points"][0]["samples_us"]["per_rank"][0][0] = 1e306;
  j["findings"][0]["score"] = 1e306;
  auto file = ReadResultFile(j);
  ASSERT_TRUE(file.ok()) << file.status().message();
  auto again = ReadResultFile(ResultFileToJson(*file));
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->points[0].samples_us.per_rank[0][0], 1e306);
}

TEST(ResultFileTest, LoadRefusesNumbersBeyondDouble) {
  TempDir dir("result-");
  const std::string path = dir.path() + "/big.json";
  std::ofstream(path) << "{\"schema_version\": 1e400}";
  auto file = LoadResultFile(path);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().message().rfind(path + " is not valid JSON (number overflow", 0), 0u)
      << file.status().message();
}

// Copying or writing a JSON value recurses per level: 100000 levels (a 200 KB file) overflowed the stack.
TEST(ResultFileTest, LoadRefusesDeepNesting) {
  TempDir dir("result-");
  const std::string path = dir.path() + "/deep.json";
  const size_t depth = 100000;
  std::ofstream(path) << "{\"schema_version\": 2, \"environment\": {\"x\": " << std::string(depth, '[')
                      << std::string(depth, ']') << "}}";
  auto file = LoadResultFile(path);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().message(), path + " is not a results file: its JSON nests deeper than 100 levels");
  const std::string line = "{\"id\": \"p\", \"per_rank\": " + std::string(depth, '[') + std::string(depth, ']') + "}";
  SampleSet samples;
  std::string id;
  EXPECT_EQ(ReadSamplesLine(line, "s:1", &id, &samples).message(), "s:1: JSON nested deeper than 100 levels");
}

TEST(ResultFileTest, AMissingOrForeignSidecarIsNamed) {
  auto file = ReadResultFile(LoadJson("reports/testdata/real_sweep_g1-4.json"));
  ASSERT_TRUE(file.ok());
  TempDir dir("result-");
  const std::string path = dir.path() + "/r.json";
  auto writer = ResultFileWriter::Open(path, file->header);
  ASSERT_TRUE(writer.ok());
  PointResult first = file->points[0];
  ASSERT_TRUE((*writer)->AppendPoint(&first).ok());
  EXPECT_EQ(first.samples_us.file, "r.samples.jsonl");
  EXPECT_TRUE(first.samples_us.per_rank.empty());
  ASSERT_TRUE((*writer)->Finish(file->trailer).ok());
  auto back = LoadResultFile(path);
  ASSERT_TRUE(back.ok());
  std::ofstream(dir.path() + "/r.samples.jsonl") << "{\"id\": \"elsewhere\", \"per_rank\": []}\n";
  Status foreign = LoadSamples(path, &*back);
  EXPECT_NE(foreign.message().find("no point 'elsewhere'"), std::string::npos) << foreign.message();
  std::remove((dir.path() + "/r.samples.jsonl").c_str());
  EXPECT_NE(LoadSamples(path, &*back).message().find("cannot read the samples file"), std::string::npos);
}

TEST(ResultFileTest, LoadNamesTheFileAndTruncation) {
  TempDir dir("result-");
  const std::string path = dir.path() + "/cut.json";
  std::ofstream(path) << "{\"schema_version\": 1, \"points\": [";
  auto file = LoadResultFile(path);
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.status().message().find("looks truncated"), std::string::npos) << file.status().message();
  EXPECT_EQ(file.status().message().rfind(path, 0), 0u);
}

}  // namespace
}  // namespace commbench::result

namespace commbench::result {
namespace {

TEST(SpecReaderTest, ReadsBackEverySetting) {
  SweepSpec s;
  s.backends = {"gloo", "native"};
  s.sizes = {4, 1 << 20};
  s.groups = {1, 2, 4};
  s.in_place = InPlace::kNo;
  s.syncs = {Sync::kNone, Sync::kWorldBarrier};
  s.concurrencies = {Concurrency::kConcurrent, Concurrency::kSequential};
  s.pins = {Pin::kNone, Pin::kCompact};
  s.cpus = {"", "0"};
  s.streams = {StreamKind::kLegacyDefault};
  s.h2ds = {H2dKind::kPinned};
  s.graphs = {false, true};
  s.iters = 100;
  s.launcher = Launcher::kMpirun;
  SweepSpec::ExplainFactor f;
  f.streams = {StreamKind::kDedicated};
  f.h2ds = {H2dKind::kPinned};
  s.explain_factors = {f};
  const json written = SpecToJson(s);
  auto back = ReadSpec(written);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(SpecToJson(*back), written);
}

TEST(SpecReaderTest, NamesTheBadValue) {
  json j = SpecToJson(SweepSpec());
  j["syncs"] = {"none", "sometimes"};
  auto bad = ReadSpec(j);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().rfind("spec.syncs[1]: unknown value 'sometimes'", 0), 0u) << bad.status().message();
}

}  // namespace
// schema_version 4: where the time goes. A point's phases and the run's wall write and read back; files before it
// have neither (real_sweep_g1-4.json is version 3).
TEST(ResultFileTest, PhasesRoundTrip) {
  auto file = ReadResultFile(LoadJson("reports/testdata/real_sweep_g1-4.json"));
  ASSERT_TRUE(file.ok()) << file.status().message();
  EXPECT_FALSE(file->points[0].phases.has_value());
  EXPECT_FALSE(file->trailer.wall.has_value());
  PhaseSeconds p;
  p[Phase::kTimed] = 0.25;
  p[Phase::kSpawn] = 0.125;
  p[Phase::kAggregation] = 0.0625;
  file->points[0].phases = p;
  WallTime w;
  w.wall_s = 2;
  w.phases[Phase::kTimed] = 1.5;
  w.phases[Phase::kLaunchEnd] = 0.5;
  w.driver_aggregation_s = 0.75;
  file->trailer.wall = w;
  const json j = ResultFileToJson(*file);
  EXPECT_EQ(j["points"][0]["phases"]["spawn"], 0.125);
  EXPECT_FALSE(j["points"][0]["phases"].contains("launch_end"));  // the run's only
  EXPECT_EQ(j["wall"]["timed_share"], 0.75);
  EXPECT_EQ(j["wall"]["timed_s"], 1.5);
  auto back = ReadResultFile(j);
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_TRUE(back->points[0].phases.has_value());
  EXPECT_EQ((*back->points[0].phases)[Phase::kAggregation], 0.0625);
  ASSERT_TRUE(back->trailer.wall.has_value());
  EXPECT_EQ(back->trailer.wall->phases[Phase::kLaunchEnd], 0.5);
  EXPECT_EQ(back->trailer.wall->driver_aggregation_s, 0.75);
  EXPECT_TRUE(json::diff(ResultFileToJson(*back), j).empty());
  json bad = j;
  bad["wall"]["phases"]["timed"] = "long";
  EXPECT_EQ(ReadResultFile(bad).status().message(), "wall.phases.timed: expected a number, got a string");
}

}  // namespace commbench::result
