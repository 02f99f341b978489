#include "lib/history/gate_baseline.h"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "lib/core/atomic_file.h"
#include "lib/history/check.h"
#include "lib/stats/summary.h"

namespace commbench::history {
namespace {

using nlohmann::json;

bool IsDirectory(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// This runner's runs, or the line that says there is none and which runners the history does hold.
StatusOr<History> RunsOf(const std::string& dir, const History& all, const std::string& fingerprint) {
  History mine;
  mine.schema_version = all.schema_version;
  std::map<std::string, std::pair<int, std::string>> others;  // fingerprint -> runs, runner
  for (const RunEntry& run : all.runs) {
    if (run.fingerprint == fingerprint) {
      mine.runs.push_back(run);
    } else {
      auto& [count, runner] = others[run.fingerprint];
      ++count;
      runner = run.runner;
    }
  }
  if (!mine.runs.empty()) return mine;
  std::string held;
  for (const auto& [fp, other] : others) {
    held += (held.empty() ? "" : "; ") + fp + " (" + std::to_string(other.first) + " runs: " + other.second + ")";
  }
  return InvalidArgument("--history " + dir + ": no run of this runner (fingerprint " + fingerprint + "); it holds " +
                         held +
                         " (accepted: a history with runs of this runner: results of another runner are never "
                         "compared)");
}

// The runs since `s`'s last change point.
PointSegment SegmentOf(const Series& s, const GateBaselineOptions& o) {
  const int n = static_cast<int>(s.values.size());
  const std::vector<ChangePoint> found =
      n >= 2 * o.change_points.min_segment ? FindChangePoints(s.repeats, o.change_points) : std::vector<ChangePoint>{};
  PointSegment seg;
  seg.point_id = s.point_id;
  seg.series_runs = n;
  const int begin = found.empty() ? 0 : found.back().index;
  seg.after_change = !found.empty();
  if (seg.after_change) seg.change_p = found.back().p;
  seg.runs.assign(s.runs.begin() + begin, s.runs.end());
  seg.run_medians.assign(s.values.begin() + begin, s.values.end());
  return seg;
}

std::string TooShort(const PointSegment& seg, const GateBaselineOptions& o) {
  const std::string have = std::to_string(seg.runs.size()) + " run" + (seg.runs.size() == 1 ? "" : "s");
  const std::string need = std::to_string(o.min_runs);
  if (!seg.after_change) {
    return "point " + seg.point_id + ": the history holds " + have + " of it from this runner, the gate needs " + need +
           ": too short to say (file more runs of main with `commbench history add`)";
  }
  const RunEntry& first = seg.runs.front();
  return "point " + seg.point_id + ": its level changed at run " + first.id + " (commit " + first.commit + ", " +
         first.time + "); the " + have + " since then are too few to say, the gate needs " + need;
}

json RunJson(const RunEntry& r) { return {{"id", r.id}, {"commit", r.commit}, {"time", r.time}}; }

}  // namespace

StatusOr<GateBaseline> LoadGateBaseline(const std::string& dir, const std::string& fingerprint,
                                        const GateBaselineOptions& options) {
  if (!IsDirectory(dir)) {
    return InvalidArgument("--history " + dir +
                           ": no such directory (accepted: a history directory that `commbench history add` made)");
  }
  auto all = LoadHistory(dir);
  if (!all.ok()) return InvalidArgument("--history " + dir + ": " + all.status().message());
  if (all->runs.empty()) {
    return InvalidArgument("--history " + dir +
                           ": the history holds no run (accepted: one with runs of this runner, filed by "
                           "`commbench history add`)");
  }
  auto mine = RunsOf(dir, *all, fingerprint);
  if (!mine.ok()) return mine.status();
  // Runs ordered by time, then filing order; the last kDefaultWindow of this runner, as `history check` reads.
  auto series = BuildSeries(dir, *mine, kDefaultWindow);
  if (!series.ok()) return InvalidArgument("--history " + dir + ": " + series.status().message());
  std::vector<RunEntry> ordered = mine->runs;
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const RunEntry& a, const RunEntry& b) { return a.time < b.time; });
  GateBaseline b;
  b.dir = dir;
  b.fingerprint = fingerprint;
  b.min_runs = options.min_runs;
  b.latest = ordered.back();
  b.runner = b.latest.runner;
  auto latest = LoadRun(dir, b.latest);
  if (!latest.ok()) return InvalidArgument("--history " + dir + ": " + latest.status().message());
  b.base = *latest;
  std::map<std::string, const Series*> by_point;
  for (const Series& s : *series) by_point[s.point_id] = &s;
  std::set<int> used;  // seq of every run some point uses
  for (result::PointResult& p : b.base.points) {
    const Series& s = *by_point.at(p.point.Id());  // the latest run is in every one of its points' series, last
    PointSegment seg = SegmentOf(s, options);
    seg.point_id = p.id;  // as the comparison names it
    for (const RunEntry& r : seg.runs) used.insert(r.seq);
    if (static_cast<int>(seg.runs.size()) < options.min_runs && b.too_short.empty())
      b.too_short = TooShort(seg, options);
    p.repeat_p50_us = seg.run_medians;
    p.repeat_mean_us.clear();  // the segment keeps medians only
    p.time_us.p50 = Median(seg.run_medians);
    b.points.push_back(std::move(seg));
  }
  for (const RunEntry& r : ordered) {
    if (used.count(r.seq)) b.runs.push_back(r);
  }
  return b;
}

json GateRecordToJson(const GateBaseline& b) {
  json runs = json::array();
  for (const RunEntry& r : b.runs) runs.push_back(RunJson(r));
  json points = json::array();
  for (const PointSegment& seg : b.points) {
    json ids = json::array();
    for (const RunEntry& r : seg.runs) ids.push_back(r.id);
    json since = nullptr;
    if (seg.after_change) {
      since = RunJson(seg.runs.front());
      since["p_value"] = seg.change_p;
    }
    points.push_back({{"point", seg.point_id},
                      {"runs", ids},
                      {"since_change_point", since},
                      {"run_medians_us", seg.run_medians},
                      {"series_runs", seg.series_runs}});
  }
  return {{"schema_version", kGateRecordSchemaVersion},
          {"history", b.dir},
          {"fingerprint", b.fingerprint},
          {"runner", b.runner},
          {"min_runs", b.min_runs},
          {"latest", RunJson(b.latest)},
          {"runs", runs},
          {"points", points}};
}

Status AddGateRecord(const std::string& path, const json& record) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidArgument(path + ": cannot read it to record the history's runs");
  std::stringstream text;
  text << in.rdbuf();
  json j = json::parse(text.str(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return InvalidArgument(path + ": not a JSON object (cannot record the runs)");
  j["gate_history"] = record;
  return WriteFileAtomically(path, j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

}  // namespace commbench::history
