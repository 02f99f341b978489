#include "lib/result/point_result.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "lib/model/point_json.h"
#include "lib/result/json_reader.h"
#include "lib/result/json_text.h"

namespace commbench::result {

using nlohmann::json;

namespace {

Summary ReadSummary(ObjectReader in) {
  Summary s;
  s.n = static_cast<size_t>(in.Int("n", 0));
  s.min = in.Number("min");
  s.p50 = in.Number("p50");
  s.p95 = in.Number("p95");
  s.p99 = in.Number("p99");
  s.max = in.Number("max");
  s.mean = in.Number("mean");
  s.stddev = in.Number("stddev", 0);
  s.cv = in.Number("cv");
  s.ci95_lo = in.Number("ci95_lo");
  s.ci95_hi = in.Number("ci95_hi");
  return s;
}

json CpuToJson(const CpuUsage& c) {
  json out = {{"cpu_s_total", c.cpu_s_total},
              {"cores_available", c.cores_available},
              {"saturation", c.saturation},
              {"threads_per_core", c.threads_per_core},
              {"vol_ctx_per_iter", c.vol_ctx_per_iter},
              {"invol_ctx_per_iter", c.invol_ctx_per_iter}};
  if (c.runqueue_wait_us_per_iter >= 0) out["runqueue_wait_us_per_iter"] = c.runqueue_wait_us_per_iter;
  if (c.migrations >= 0) out["migrations"] = c.migrations;  // likewise absent where not known
  if (c.cpu_quota > 0) out["cpu_quota"] = c.cpu_quota;      // likewise
  if (c.throttled_share >= 0) out["throttled_share"] = c.throttled_share;
  return out;
}

CpuUsage ReadCpu(ObjectReader in) {
  CpuUsage c;
  c.cpu_s_total = in.Number("cpu_s_total", 0);
  c.cores_available = in.SmallInt("cores_available", 0);
  c.saturation = in.Number("saturation", 0);
  c.threads_per_core = in.Number("threads_per_core", 0);
  c.vol_ctx_per_iter = in.Number("vol_ctx_per_iter", 0);
  c.invol_ctx_per_iter = in.Number("invol_ctx_per_iter", 0);
  c.runqueue_wait_us_per_iter = in.Has("runqueue_wait_us_per_iter") ? in.Number("runqueue_wait_us_per_iter", 0) : -1;
  c.migrations = in.Has("migrations") ? in.Int("migrations", 0) : -1;
  c.cpu_quota = in.Has("cpu_quota") ? in.Number("cpu_quota", 0) : 0;
  c.throttled_share = in.Has("throttled_share") ? in.Number("throttled_share", 0) : -1;
  return c;
}

json RankToJson(const RankTime& r) {
  json out = {{"rank", r.rank},
              {"group", r.group},
              {"group_rank", r.group_rank},
              {"pid", r.pid},
              {"time_us", SummaryToJson(r.time_us)},
              {"cpu_user_s", r.cpu_user_s},
              {"cpu_sys_s", r.cpu_sys_s},
              {"vol_ctx", r.vol_ctx},
              {"invol_ctx", r.invol_ctx},
              {"affinity", r.affinity},
              {"setup_s", r.setup_s},
              {"wall_s", r.wall_s},
              {"checked_iters", r.checked_iters}};
  if (r.process_rank >= 0) out["process_rank"] = r.process_rank;
  if (!r.host.empty()) out["host"] = r.host;  // absent where it was not recorded, so older files read back alike
  if (!r.address.empty()) out["address"] = r.address;
  if (r.transport != Transport::kUnknown) out["transport"] = Name(r.transport);
  if (r.runqueue_wait_s >= 0) out["runqueue_wait_s"] = r.runqueue_wait_s;
  if (r.migrations >= 0) out["migrations"] = r.migrations;
  if (r.traffic) out["traffic"] = RankTrafficToJson(*r.traffic);
  return out;
}

RankTime ReadRank(ObjectReader in) {
  RankTime r;
  r.rank = in.SmallInt("rank", 0);
  r.group = in.SmallInt("group", 0);
  r.group_rank = in.SmallInt("group_rank", 0);
  r.pid = in.SmallInt("pid", 0);
  r.process_rank = in.Has("process_rank") ? in.SmallInt("process_rank", -1) : -1;  // absent before it was recorded
  r.host = in.Has("host") ? in.String("host") : "";                                // absent before hosts were recorded
  r.address = in.Has("address") ? in.String("address") : "";
  // Absent before transports were reported, and where the backend does not say.
  if (in.Has("transport")) r.transport = in.Parsed("transport", ParseTransport, Transport::kUnknown);
  r.time_us = ReadSummary(in.Object("time_us"));
  r.cpu_user_s = in.Number("cpu_user_s", 0);
  r.cpu_sys_s = in.Number("cpu_sys_s", 0);
  r.vol_ctx = in.Number("vol_ctx", 0);
  r.invol_ctx = in.Number("invol_ctx", 0);
  r.runqueue_wait_s = in.Has("runqueue_wait_s") ? in.Number("runqueue_wait_s", 0) : -1;  // absent: not known
  r.migrations = in.Has("migrations") ? in.Int("migrations", 0) : -1;                    // likewise
  r.affinity = in.String("affinity");
  r.setup_s = in.Number("setup_s");
  // Files written before wall_s was recorded per rank do not have it.
  r.wall_s = in.Has("wall_s") ? in.Number("wall_s", 0) : 0;
  r.checked_iters = in.Has("checked_iters") ? in.Int("checked_iters", 0) : 0;  // likewise
  // Absent before traffic was measured, and where nothing measured it.
  if (in.Has("traffic")) r.traffic = ReadRankTraffic(in.Object("traffic"));
  return r;
}

json PerRankToJson(const std::vector<std::vector<double>>& per_rank) {
  json out = json::array();
  for (const auto& rank : per_rank) {
    json times = json::array();
    for (double us : rank) times.push_back(RoundToNanosecond(us));
    out.push_back(std::move(times));
  }
  return out;
}

json SamplesToJson(const SampleSet& s) {
  if (!s.file.empty()) return {{"cap", s.cap}, {"file", s.file}};
  return {{"cap", s.cap}, {"per_rank", PerRankToJson(s.per_rank)}};
}

void ReadPerRank(ObjectReader& in, SampleSet* s) {
  const auto ranks = in.Array("per_rank");
  for (size_t i = 0; i < ranks.size(); ++i) {
    const std::string path = ObjectReader::PathOf(in.PathOf("per_rank"), i);
    if (!ranks[i]->is_array()) {
      in.errors()->Add(path, "expected an array, got " + KindOf(*ranks[i]));
      break;
    }
    std::vector<double> times;
    times.reserve(ranks[i]->size());
    for (size_t k = 0; k < ranks[i]->size(); ++k) {
      const json& t = (*ranks[i])[k];
      if (!t.is_number()) {
        in.errors()->Add(ObjectReader::PathOf(path, k), "expected a number, got " + KindOf(t));
        return;
      }
      times.push_back(t.get<double>());
    }
    s->per_rank.push_back(std::move(times));
  }
}

SampleSet ReadSamples(ObjectReader in) {
  SampleSet s;
  s.cap = in.Int("cap", 0);
  if (in.Has("file")) {
    s.file = in.String("file");
  } else {
    ReadPerRank(in, &s);
  }
  return s;
}

// Reads each element of the array `key` with `read`, which gets an ObjectReader at "<key>[i]".
template <typename T, typename Read>
std::vector<T> ReadEach(ObjectReader& in, const char* key, Read read) {
  std::vector<T> out;
  const auto items = in.Array(key);
  out.reserve(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    out.push_back(read(ObjectReader(*items[i], ObjectReader::PathOf(in.PathOf(key), i), in.errors())));
  }
  return out;
}

}  // namespace

// Huge values need no rounding; scaling them would overflow to infinity, which JSON cannot hold.
double RoundToNanosecond(double us) { return std::isfinite(us * 1000) ? std::round(us * 1000) / 1000 : us; }

json SummaryToJson(const Summary& s) {
  return {{"n", s.n},     {"min", s.min},         {"p50", s.p50},        {"p95", s.p95},
          {"p99", s.p99}, {"max", s.max},         {"mean", s.mean},      {"stddev", s.stddev},
          {"cv", s.cv},   {"ci95_lo", s.ci95_lo}, {"ci95_hi", s.ci95_hi}};
}

json PointAxesToJson(const Point& p) { return PointToJson(p); }

StatusOr<Point> ReadPoint(const json& j, const std::string& path) {
  SchemaErrors errors;
  ObjectReader in(j, path, &errors);
  // Every field is read (and checked) before the point is built by the one parser of point axes.
  const int64_t groups = in.Int("groups", 1);
  const int64_t group_size = in.Int("group_size", 1);
  const int64_t world = in.Int("world", 1);
  in.Unsigned("bytes");
  in.Int("count", 1);
  in.Int("ranks_per_process", 1);
  in.Unsigned("h2d_bytes");
  for (const char* key : {"backend", "op", "algo", "dtype", "reduce", "sync", "pin", "cpus"}) in.String(key);
  // Files written before groups could take turns have no concurrency: all their groups ran at once.
  const bool has_concurrency = in.Has("concurrency");
  if (has_concurrency) in.String("concurrency");
  for (const char* key : {"in_place", "graph"}) in.Bool(key);
  if (in.Has("transport")) in.String("transport");
  for (const char* key : {"stream", "h2d"}) {
    if (!in.IsNull(key)) in.String(key);
  }
  RETURN_IF_ERROR(errors.status());
  if (world != groups * group_size) {
    return InvalidArgument(in.PathOf("world") + ": " + std::to_string(world) +
                           " is not groups x group_size = " + std::to_string(groups * group_size));
  }
  json upgraded;
  if (!has_concurrency) {
    upgraded = j;
    upgraded["concurrency"] = "concurrent";
  }
  auto point = PointFromJson(has_concurrency ? j : upgraded);
  if (!point.ok()) return InvalidArgument(path + ": " + point.status().message());
  return point;
}

json PointResultToJson(const PointResult& p) {
  json out = PointAxesToJson(p.point);
  out["id"] = p.id;
  out["iters"] = p.iters;
  out["warmup"] = p.warmup;
  out["correct"] = p.correct;
  out["errors"] = p.errors;
  out["checked_iters"] = p.checked_iters;
  out["time_us"] = SummaryToJson(p.time_us);
  out["time_us_rank_mean"] = SummaryToJson(p.time_us_rank_mean);
  out["device_time_us"] = p.device_time_us ? SummaryToJson(*p.device_time_us) : json(nullptr);
  if (p.headline_group) out["headline_group"] = *p.headline_group;
  if (p.headline_rank) out["headline_rank"] = *p.headline_rank;
  if (p.loop_us_per_op) out["loop_us_per_op"] = *p.loop_us_per_op;
  if (p.time_us_world_max) out["time_us_world_max"] = SummaryToJson(*p.time_us_world_max);
  out["algbw_gbps"] = p.algbw_gbps;
  out["busbw_gbps"] = p.busbw_gbps;
  out["aggregate_algbw_gbps"] = p.aggregate_algbw_gbps;
  out["aggregate_busbw_gbps"] = p.aggregate_busbw_gbps;
  out["wall_s"] = p.wall_s;
  out["cpu"] = CpuToJson(p.cpu);
  out["skew"] = {{"start_skew_us", p.skew.start_skew_us},
                 {"slowest_group", p.skew.slowest_group},
                 {"slowest_rank", p.skew.slowest_rank}};
  // Transfer, arrival and busy time (issue 52).
  if (p.arrival) {
    out["arrival"] = {{"method", std::string(NameOf(kSkewMethodNames, p.arrival->method))},
                      {"transfer_us", SummaryToJson(p.arrival->transfer_us)},
                      {"skew_us", SummaryToJson(p.arrival->skew_us)}};
  }
  if (p.busy_time) {
    out["busy_time"] = {{"union_s", p.busy_time->union_s},
                        {"aggregate_algbw_gbps", p.busy_time->aggregate_algbw_gbps},
                        {"aggregate_busbw_gbps", p.busy_time->aggregate_busbw_gbps}};
  }
  json per_group = json::array();
  for (const GroupTime& g : p.per_group) {
    json group = {{"group", g.group}, {"p50_us", g.p50_us}, {"mean_us", g.mean_us}};
    if (!g.hosts.empty()) group["hosts"] = g.hosts;
    if (g.transfer_p50_us) group["transfer_p50_us"] = *g.transfer_p50_us;  // issue 52
    if (g.skew_p50_us) group["skew_p50_us"] = *g.skew_p50_us;
    if (g.last_arrival_rank) group["last_arrival_rank"] = *g.last_arrival_rank;
    if (g.last_arrival_share) group["last_arrival_share"] = *g.last_arrival_share;
    per_group.push_back(std::move(group));
  }
  out["per_group"] = std::move(per_group);
  json per_rank = json::array();
  for (const RankTime& r : p.per_rank) per_rank.push_back(RankToJson(r));
  out["per_rank"] = std::move(per_rank);
  out["samples_us"] = SamplesToJson(p.samples_us);
  if (p.host_load) out["host_load"] = HostLoadToJson(*p.host_load);
  if (p.phases) out["phases"] = PointPhasesToJson(*p.phases);
  if (p.comm_memory) out["comm_memory"] = CommMemoryToJson(*p.comm_memory);
  if (!p.repeat_p50_us.empty()) {
    out["repeats"] = {{"n", p.repeat_p50_us.size()}, {"p50_us", p.repeat_p50_us}, {"mean_us", p.repeat_mean_us}};
  }
  return WithValidUtf8(std::move(out));  // ids and errors may quote host names; the sidecar, the --out name
}

std::string SamplesLine(const PointResult& p) {
  return DumpJson(json{{"id", p.id}, {"per_rank", PerRankToJson(p.samples_us.per_rank)}});
}

Status ReadSamplesLine(const std::string& line, const std::string& path, std::string* id, SampleSet* samples) {
  auto j = ParseJsonLine(line);
  if (!j.ok()) return InvalidArgument(path + ": " + j.status().message());
  SchemaErrors errors;
  ObjectReader in(*j, path, &errors);
  *id = in.String("id");
  samples->per_rank.clear();
  ReadPerRank(in, samples);
  return errors.status();
}

std::vector<double> RepeatMedians(const PointResult& p) {
  return p.repeat_p50_us.empty() ? std::vector<double>{p.time_us.p50} : p.repeat_p50_us;
}

PointResult CombineRepeats(std::vector<PointResult> repeats) {
  if (repeats.empty()) return PointResult{};
  std::vector<double> p50, mean;
  std::vector<std::string> errors;
  bool correct = true;
  for (size_t r = 0; r < repeats.size(); ++r) {
    const PointResult& one = repeats[r];
    const std::vector<double> medians = RepeatMedians(one);
    p50.insert(p50.end(), medians.begin(), medians.end());
    if (one.repeat_mean_us.size() == one.repeat_p50_us.size() && !one.repeat_mean_us.empty()) {
      mean.insert(mean.end(), one.repeat_mean_us.begin(), one.repeat_mean_us.end());
    } else {
      mean.push_back(one.time_us.mean);
    }
    correct = correct && one.correct;
    if (r + 1 == repeats.size()) continue;  // the last repeat's errors stay as they are, after the others'
    for (const std::string& e : one.errors) errors.push_back("repeat " + std::to_string(r + 1) + ": " + e);
  }
  PointResult out = std::move(repeats.back());
  errors.insert(errors.end(), out.errors.begin(), out.errors.end());
  out.errors = std::move(errors);
  out.correct = correct;
  out.repeat_p50_us = std::move(p50);
  out.repeat_mean_us = std::move(mean);
  return out;
}

StatusOr<PointResult> ReadPointResult(const json& j, const std::string& path) {
  PointResult p;
  ASSIGN_OR_RETURN(p.point, ReadPoint(j, path));
  SchemaErrors errors;
  ObjectReader in(j, path, &errors);
  p.id = in.String("id");
  p.iters = in.Int("iters", 0);
  p.warmup = in.Int("warmup", 0);
  p.correct = in.Bool("correct");
  p.errors = in.Strings("errors");
  p.checked_iters = in.Has("checked_iters") ? in.Int("checked_iters", 0) : 0;  // absent before it was recorded
  p.time_us = ReadSummary(in.Object("time_us"));
  p.time_us_rank_mean = ReadSummary(in.Object("time_us_rank_mean"));
  if (!in.IsNull("device_time_us")) p.device_time_us = ReadSummary(in.Object("device_time_us"));
  // Files written before the headline was one group's own series lack these.
  if (in.Has("headline_group")) p.headline_group = static_cast<int>(in.Int("headline_group", -1));
  if (in.Has("headline_rank")) p.headline_rank = static_cast<int>(in.Int("headline_rank", -1));
  if (in.Has("loop_us_per_op")) p.loop_us_per_op = in.Number("loop_us_per_op", 0);
  if (in.Has("time_us_world_max")) p.time_us_world_max = ReadSummary(in.Object("time_us_world_max"));
  p.algbw_gbps = in.Number("algbw_gbps", 0);
  p.busbw_gbps = in.Number("busbw_gbps", 0);
  p.aggregate_algbw_gbps = in.Number("aggregate_algbw_gbps", 0);
  p.aggregate_busbw_gbps = in.Number("aggregate_busbw_gbps", 0);
  p.wall_s = in.Number("wall_s", 0);
  p.cpu = ReadCpu(in.Object("cpu"));
  ObjectReader skew = in.Object("skew");
  p.skew.start_skew_us = skew.Number("start_skew_us");
  p.skew.slowest_group = skew.SmallInt("slowest_group", 0);
  p.skew.slowest_rank = skew.SmallInt("slowest_rank", 0);
  p.per_group = ReadEach<GroupTime>(in, "per_group", [](ObjectReader g) {
    GroupTime t;
    t.group = g.SmallInt("group", 0);
    t.p50_us = g.Number("p50_us");
    t.mean_us = g.Number("mean_us");
    if (g.Has("hosts")) t.hosts = g.Strings("hosts");  // absent before hosts were recorded
    // Issue 52's transfer and arrival skew, absent before they were recorded.
    if (g.Has("transfer_p50_us")) t.transfer_p50_us = g.Number("transfer_p50_us");
    if (g.Has("skew_p50_us")) t.skew_p50_us = g.Number("skew_p50_us");
    if (g.Has("last_arrival_rank")) t.last_arrival_rank = g.SmallInt("last_arrival_rank", 0);
    if (g.Has("last_arrival_share")) t.last_arrival_share = g.Number("last_arrival_share");
    return t;
  });
  p.per_rank = ReadEach<RankTime>(in, "per_rank", ReadRank);
  // Transfer, arrival and busy time (issue 52): absent in files written before they were recorded.
  if (in.Has("arrival")) {
    ObjectReader a = in.Object("arrival");
    Arrival arrival;
    arrival.method = a.Enum("method", kSkewMethodNames);
    arrival.transfer_us = ReadSummary(a.Object("transfer_us"));
    arrival.skew_us = ReadSummary(a.Object("skew_us"));
    p.arrival = arrival;
  }
  if (in.Has("busy_time")) {
    ObjectReader b = in.Object("busy_time");
    p.busy_time =
        BusyTime{b.Number("union_s", 0), b.Number("aggregate_algbw_gbps", 0), b.Number("aggregate_busbw_gbps", 0)};
  }
  if (in.Has("samples_us")) p.samples_us = ReadSamples(in.Object("samples_us"));
  if (in.Has("repeats")) {  // schema_version 3
    ObjectReader repeats = in.Object("repeats");
    const int64_t n = repeats.Int("n", 1);
    p.repeat_p50_us = repeats.Numbers("p50_us");
    p.repeat_mean_us = repeats.Numbers("mean_us");
    if (errors.status().ok() &&
        (static_cast<int64_t>(p.repeat_p50_us.size()) != n || static_cast<int64_t>(p.repeat_mean_us.size()) != n)) {
      errors.Add(repeats.PathOf("n"), std::to_string(n) + " repeats, but " + std::to_string(p.repeat_p50_us.size()) +
                                          " p50_us and " + std::to_string(p.repeat_mean_us.size()) + " mean_us values");
    }
  }
  RETURN_IF_ERROR(errors.status());
  if (in.Has("phases")) {
    ASSIGN_OR_RETURN(p.phases, ReadPointPhases(j["phases"], in.PathOf("phases")));
  }
  if (in.Has("host_load")) {
    ASSIGN_OR_RETURN(p.host_load, ReadHostLoad(j["host_load"], in.PathOf("host_load")));
  }
  if (in.Has("comm_memory")) {
    ASSIGN_OR_RETURN(p.comm_memory, ReadCommMemory(j["comm_memory"], in.PathOf("comm_memory")));
  }
  return p;
}

// --- communicator memory (issue 52) ---
json CommMemoryToJson(const CommMemory& m) {
  json out = {{"rss_bytes", m.rss_bytes},
              {"rss_bytes_per_group", m.RssBytesPerGroup()},
              {"processes", m.processes},
              {"groups", m.groups}};
  if (m.device_bytes >= 0) {
    out["device_bytes"] = m.device_bytes;
    out["device_bytes_per_group"] = m.DeviceBytesPerGroup();
  }
  return out;
}

StatusOr<CommMemory> ReadCommMemory(const json& j, const std::string& path) {
  SchemaErrors errors;
  ObjectReader in(j, path, &errors);
  CommMemory m;
  m.rss_bytes = in.Int("rss_bytes", 0);
  m.processes = in.SmallInt("processes", 0);
  m.groups = in.SmallInt("groups", 1);
  m.device_bytes = in.Has("device_bytes") ? in.Int("device_bytes", 0) : -1;
  RETURN_IF_ERROR(errors.status());
  return m;
}
// --- end communicator memory ---

}  // namespace commbench::result
