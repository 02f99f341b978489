#include "lib/export/trace.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "lib/export/point_axes.h"

namespace commbench::exporting {
namespace {

using json = nlohmann::json;

constexpr int kSweepPid = 0;   // the point events
constexpr double kGapUs = 1000;  // between points

// To 1/1024 us (under a nanosecond), a binary fraction: sums of such times are exact in doubles, so a viewer
// that adds ts and dur (speedscope, in JavaScript) finds a back-to-back event's end exactly at the next one's ts
// and inside its parent's. Decimal nanoseconds are not exact (20377.221 + 471.869 > 20849.09 in doubles), and
// speedscope then reads each iteration as ending after the next began and breaks the lane's nesting.
double Us(double us) { return std::round(us * 1024) / 1024; }

json Complete(const std::string& name, const std::string& cat, int pid, int tid, double ts, double dur, json args) {
  json e = {{"name", name}, {"cat", cat}, {"ph", "X"}, {"pid", pid}, {"tid", tid}, {"ts", Us(ts)}, {"dur", Us(dur)}};
  if (!args.is_null()) e["args"] = std::move(args);
  return e;
}

json Metadata(const std::string& what, int pid, int tid, json args) {
  return {{"name", what}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", std::move(args)}};
}

json PointArgs(const result::PointResult& p) {
  json args = {{"id", p.id}};
  for (const Field& f : AxisFields(p.point)) args[f.first] = f.second;
  args["iters"] = p.iters;
  args["loop_us"] = p.time_us.mean;
  args["p50_us"] = p.time_us.p50;
  args["p99_us"] = p.time_us.p99;
  args["busbw_gbps"] = p.busbw_gbps;
  args["correct"] = p.correct;
  args["samples_kept_per_rank"] = p.samples_us.cap;
  return args;
}

struct Lanes {
  std::map<int, std::string> host;                // pid -> host
  std::map<int, std::set<int>> groups;            // pid -> groups it ran in
};

// One rank's set-up, timed loop and kept iterations from `start`; returns where its lane ends.
double RankLane(const result::PointResult& p, const result::RankTime& r, const std::vector<double>* kept,
                double loop_start, json* events) {
  const int pid = r.rank + 1, tid = r.group + 1;
  if (r.setup_s > 0) {
    const double begin = Us(loop_start - r.setup_s * 1e6);
    events->push_back(Complete("set-up", "setup", pid, tid, begin, Us(loop_start) - begin, json{{"point", p.id}}));
  }
  double t = Us(loop_start);
  json iterations = json::array();
  if (kept) {
    for (size_t i = 0; i < kept->size(); ++i) {
      const double dur = Us((*kept)[i]);
      iterations.push_back(Complete("iteration " + std::to_string(i), "iteration", pid, tid, t, dur, json()));
      t = Us(t + dur);
    }
  }
  const double end = std::max(Us(loop_start + r.wall_s * 1e6), t);
  json args = {{"point", p.id}, {"rank", r.rank}, {"group", r.group}, {"host", r.host}, {"pid", r.pid},
               {"iters", p.iters}, {"iterations_shown", kept ? kept->size() : 0}, {"checked_iters", r.checked_iters},
               {"p50_us", r.time_us.p50}, {"mean_us", r.time_us.mean}, {"setup_s", r.setup_s},
               {"loop_wall_us", r.wall_s * 1e6}};
  events->push_back(Complete(p.id, "loop", pid, tid, loop_start, end - Us(loop_start), std::move(args)));
  for (json& e : iterations) events->push_back(std::move(e));
  return end;
}

// The point's lanes from `start`; returns where the point ends.
double PointEvents(const result::PointResult& p, double start, json* events, Lanes* lanes) {
  double setup_us = 0;
  for (const result::RankTime& r : p.per_rank) setup_us = std::max(setup_us, r.setup_s * 1e6);
  const double loop_start = Us(start + setup_us);
  double end = loop_start;
  const auto& kept = p.samples_us.per_rank;
  for (size_t i = 0; i < p.per_rank.size(); ++i) {
    const result::RankTime& r = p.per_rank[i];
    const std::vector<double>* samples = i < kept.size() ? &kept[i] : nullptr;
    end = std::max(end, RankLane(p, r, samples, loop_start, events));
    lanes->host[r.rank + 1] = r.host.empty() ? r.address : r.host;
    lanes->groups[r.rank + 1].insert(r.group);
  }
  end = std::max(end, Us(start + p.wall_s * 1e6));
  events->push_back(Complete(p.id, "point", kSweepPid, 1, start, end - start, PointArgs(p)));
  return end;
}

void LaneNames(const Lanes& lanes, json* events) {
  events->push_back(Metadata("process_name", kSweepPid, 0, {{"name", "commbench"}}));
  events->push_back(Metadata("process_sort_index", kSweepPid, 0, {{"sort_index", -1}}));
  events->push_back(Metadata("thread_name", kSweepPid, 1, {{"name", "points"}}));
  for (const auto& [pid, groups] : lanes.groups) {
    std::string name = "rank " + std::to_string(pid - 1) + " (host " + lanes.host.at(pid);
    if (groups.size() == 1) name += ", group " + std::to_string(*groups.begin());
    events->push_back(Metadata("process_name", pid, 0, {{"name", name + ")"}}));
    events->push_back(Metadata("process_sort_index", pid, 0, {{"sort_index", pid}}));
    for (int g : groups) {
      events->push_back(Metadata("thread_name", pid, g + 1, {{"name", "group " + std::to_string(g)}}));
      events->push_back(Metadata("thread_sort_index", pid, g + 1, {{"sort_index", g}}));
    }
  }
}

}  // namespace

json ToTraceEvents(const result::ResultFile& file) {
  json events = json::array();
  Lanes lanes;
  double t = 0;
  for (const result::PointResult& p : file.points) t = PointEvents(p, t, &events, &lanes) + kGapUs;
  LaneNames(lanes, &events);
  const auto& h = file.header;
  json other = {{"tool", h.tool.name + " " + h.tool.version + " (" + h.tool.commit + ")"},
                {"command", h.command},
                {"started_at", h.started_at},
                {"host", h.environment.host},
                {"time_axis",
                 "points end to end in file order; a rank's kept iterations back to back from its loop's start "
                 "(the result keeps their durations, not their starts); its loop event spans its timed loop's wall "
                 "time, so what it spent outside the operations shows as the loop's tail"}};
  return {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ns"}, {"otherData", std::move(other)}};
}

std::string ToTraceText(const result::ResultFile& file) {
  return ToTraceEvents(file).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace commbench::exporting
