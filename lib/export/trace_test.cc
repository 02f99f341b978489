#include "lib/export/trace.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

namespace commbench::exporting {
namespace {

using json = nlohmann::json;

result::ResultFile Load(const std::string& path) {
  auto file = result::LoadResultFile(path);
  EXPECT_TRUE(file.ok()) << file.status().message();
  return file.ok() ? *file : result::ResultFile{};
}

// The Trace Event Format's rules for what this writer emits: an object with traceEvents; every event a phase,
// integer pid and tid; complete events a name, ts and dur >= 0 in microseconds; metadata events one of the known
// names with their arg; complete events on one thread nest (none straddles another's end). Returns the complete
// events' end per (pid, tid).
std::map<std::pair<int, int>, double> Validate(const json& trace) {
  std::map<std::pair<int, int>, double> lane_end;
  EXPECT_TRUE(trace.is_object() && trace["traceEvents"].is_array());
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> spans;
  const std::set<std::string> metadata = {"process_name", "process_sort_index", "thread_name", "thread_sort_index"};
  for (const json& e : trace["traceEvents"]) {
    EXPECT_TRUE(e["pid"].is_number_integer() && e["tid"].is_number_integer()) << e;
    EXPECT_TRUE(e["name"].is_string()) << e;
    if (e["ph"] == "M") {
      EXPECT_TRUE(metadata.count(e["name"])) << e;
      EXPECT_TRUE(e["args"].contains("name") || e["args"].contains("sort_index")) << e;
      continue;
    }
    EXPECT_EQ(e["ph"], "X") << e;
    if (!e["ts"].is_number() || !e["dur"].is_number()) {
      ADD_FAILURE() << "no ts or dur: " << e;
      continue;
    }
    EXPECT_GE(e["ts"].get<double>(), 0) << e;
    EXPECT_GE(e["dur"].get<double>(), 0) << e;
    spans[{e["pid"], e["tid"]}].push_back({e["ts"], e["ts"].get<double>() + e["dur"].get<double>()});
  }
  for (auto& [lane, s] : spans) {
    std::sort(s.begin(), s.end(),
              [](auto a, auto b) { return a.first != b.first ? a.first < b.first : a.second > b.second; });
    std::vector<double> open;  // ends of the enclosing events
    for (const auto& [begin, end] : s) {
      // Exactly, in doubles, as a viewer adding ts and dur reads it (speedscope unnests what overlaps by an ulp).
      while (!open.empty() && open.back() <= begin) open.pop_back();
      if (!open.empty()) {
        EXPECT_LE(end, open.back()) << "pid " << lane.first << " tid " << lane.second << " at " << begin;
      }
      open.push_back(end);
      lane_end[lane] = std::max(lane_end[lane], end);
    }
  }
  return lane_end;
}

TEST(TraceTest, ARealSweepFollowsTheFormat) {
  const result::ResultFile file = Load("reports/testdata/real_sweep_g1-4.json");
  const json trace = ToTraceEvents(file);
  Validate(trace);
  size_t kept = 0, iterations = 0, loops = 0, points = 0;
  for (const auto& p : file.points) {
    for (const auto& r : p.samples_us.per_rank) kept += r.size();
  }
  std::set<int> named;
  for (const json& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") named.insert(e["pid"].get<int>());
    if (e["ph"] != "X") continue;
    iterations += e["cat"] == "iteration";
    loops += e["cat"] == "loop";
    points += e["cat"] == "point";
  }
  EXPECT_EQ(iterations, kept);
  EXPECT_EQ(points, file.points.size());
  size_t ranks = 0;
  int world = 0;
  for (const auto& p : file.points) ranks += p.per_rank.size(), world = std::max(world, p.point.world());
  EXPECT_EQ(loops, ranks);
  EXPECT_EQ(named.size(), static_cast<size_t>(world) + 1);  // a process per rank and the sweep's
}

TEST(TraceTest, ProcessesAreNamedByRankHostAndGroup) {
  const json trace = ToTraceEvents(Load("reports/testdata/real_sweep_g1-4.json"));
  std::map<int, std::string> names;
  for (const json& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") names[e["pid"]] = e["args"]["name"];
  }
  ASSERT_TRUE(names.count(1));
  EXPECT_EQ(names.at(1).rfind("rank 0 (host ", 0), 0u) << names.at(1);
  EXPECT_NE(names.at(1).find(", group 0)"), std::string::npos) << names.at(1);
  EXPECT_EQ(names.at(0), "commbench");
}

TEST(TraceTest, IterationsAreTheKeptSamplesInMicroseconds) {
  const result::ResultFile file = Load("reports/testdata/real_sweep_g1-4.json");
  const json trace = ToTraceEvents(file);
  const result::PointResult& p = file.points.front();
  std::vector<double> durations;
  for (const json& e : trace["traceEvents"]) {
    if (e["ph"] == "X" && e["cat"] == "iteration" && e["pid"] == 1 &&
        durations.size() < p.samples_us.per_rank[0].size()) {
      durations.push_back(e["dur"]);
    }
  }
  ASSERT_EQ(durations.size(), p.samples_us.per_rank[0].size());
  for (size_t i = 0; i < durations.size(); ++i) EXPECT_NEAR(durations[i], p.samples_us.per_rank[0][i], 0.0005);
}

// Two concurrent groups, the second's ranks four times slower, every rank's loop as long (as in a real run, where
// the world waits for the slowest group): the second group's iterations end visibly later.
TEST(TraceTest, AStragglerGroupShowsAsALongerLane) {
  result::ResultFile file;
  result::PointResult p;
  p.id = "two-groups";
  p.point.backend = "gloo";
  p.point.groups = 2;
  p.iters = 100;
  p.samples_us.cap = 100;
  for (int r = 0; r < 4; ++r) {
    result::RankTime t;
    t.rank = r, t.group = r / 2, t.group_rank = r % 2, t.host = "h";
    const double us = r < 2 ? 10 : 40;
    t.time_us.mean = us;
    t.wall_s = 4100e-6;
    p.per_rank.push_back(t);
    p.samples_us.per_rank.push_back(std::vector<double>(100, us));
  }
  p.wall_s = 4100e-6;
  file.points.push_back(p);
  const json trace = ToTraceEvents(file);
  Validate(trace);
  std::map<int, double> iterations_end;  // pid -> its last iteration's end
  for (const json& e : trace["traceEvents"]) {
    if (e["ph"] == "X" && e["cat"] == "iteration") {
      iterations_end[e["pid"]] = std::max(iterations_end[e["pid"]], e["ts"].get<double>() + e["dur"].get<double>());
    }
  }
  EXPECT_NEAR(iterations_end.at(1), 1000, 1);
  EXPECT_NEAR(iterations_end.at(3), 4000, 1);
  EXPECT_GT(iterations_end.at(4), 3 * iterations_end.at(2));
}

TEST(TraceTest, SetUpIsItsOwnEventBeforeTheLoop) {
  result::ResultFile file = Load("reports/testdata/real_sweep_g1-4.json");
  file.points.front().per_rank[0].setup_s = 0.002;
  const json trace = ToTraceEvents(file);
  Validate(trace);
  bool found = false;
  for (const json& e : trace["traceEvents"]) {
    if (e["ph"] == "X" && e["cat"] == "setup" && e["pid"] == 1 && e["dur"] == 2000) found = true;
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace commbench::exporting
