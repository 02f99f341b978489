#include "lib/model/point_json.h"

#include <nlohmann/json.hpp>

namespace commbench {

using nlohmann::json;

namespace {

std::string Text(const json& j, const char* field) { return j.at(field).get<std::string>(); }
std::string FieldError(const char* field) { return std::string("point field '") + field + "': unknown value"; }

template <typename E>
json Names(const std::vector<E>& values) {
  json out = json::array();
  for (E v : values) out.push_back(Name(v));
  return out;
}

}  // namespace

json PointToJson(const Point& p) {
  json j = {{"id", p.Id()},
            {"backend", p.backend},
            {"op", Name(p.op)},
            {"algo", p.algo},
            {"dtype", Name(p.dtype)},
            {"reduce", Name(p.reduce)},
            {"groups", p.groups},
            {"group_size", p.group_size},
            {"world", p.world()},
            {"bytes", p.bytes},
            {"count", p.count},
            {"in_place", p.in_place},
            {"sync", Name(p.sync)},
            {"concurrency", Name(p.concurrency)},
            {"ranks_per_process", p.ranks_per_process},
            {"pin", Name(p.pin)},
            {"cpus", p.cpus}};
  if (p.transport != Transport::kUnknown) j["transport"] = Name(p.transport);
  if (!p.phase.empty()) j["phase"] = p.phase;
  if (p.gpu_backend()) {
    j["stream"] = Name(p.gpu.stream);
    j["h2d"] = Name(p.gpu.h2d);
    j["h2d_bytes"] = p.gpu.h2d_bytes;
    j["graph"] = p.gpu.graph;
  } else {
    j["stream"] = nullptr;
    j["h2d"] = nullptr;
    j["h2d_bytes"] = 0;
    j["graph"] = false;
  }
  return j;
}

StatusOr<Point> PointFromJson(const json& j) {
  try {
    Point p;
    p.backend = j.at("backend").get<std::string>();
    ASSIGN_OR_RETURN(p.op, ParseCollective(j.at("op").get<std::string>()));
    p.algo = j.at("algo").get<std::string>();
    ASSIGN_OR_RETURN(p.dtype, ParseDataType(j.at("dtype").get<std::string>()));
    ASSIGN_OR_RETURN(p.reduce, ParseReduceOp(j.at("reduce").get<std::string>()));
    p.groups = j.at("groups").get<int>();
    p.group_size = j.at("group_size").get<int>();
    p.bytes = j.at("bytes").get<uint64_t>();
    p.count = j.at("count").get<size_t>();
    p.in_place = j.at("in_place").get<bool>();
    ASSIGN_OR_RETURN(p.sync, ParseSync(Text(j, "sync"), FieldError("sync")));
    ASSIGN_OR_RETURN(p.concurrency, ParseConcurrency(Text(j, "concurrency"), FieldError("concurrency")));
    p.ranks_per_process = j.at("ranks_per_process").get<int>();
    ASSIGN_OR_RETURN(p.pin, ParsePin(Text(j, "pin"), FieldError("pin")));
    p.cpus = j.at("cpus").get<std::string>();
    // Files written before points recorded their transport do not say it.
    if (j.contains("transport")) {
      ASSIGN_OR_RETURN(p.transport, ParseTransport(Text(j, "transport"), FieldError("transport")));
    }
    if (j.contains("phase")) p.phase = j.at("phase").get<std::string>();  // acceptance points only
    // PointToJson writes the GPU axes of GPU points only.
    if (!j.at("stream").is_null()) {
      p.device = DeviceKind::kGpu;
      ASSIGN_OR_RETURN(p.gpu.stream, ParseStreamKind(Text(j, "stream"), FieldError("stream")));
    }
    if (!j.at("h2d").is_null()) {
      ASSIGN_OR_RETURN(p.gpu.h2d, ParseH2dKind(Text(j, "h2d"), FieldError("h2d")));
    }
    p.gpu.h2d_bytes = j.at("h2d_bytes").get<uint64_t>();
    p.gpu.graph = j.at("graph").get<bool>();
    return p;
  } catch (const json::exception& e) {
    return InvalidArgument(std::string("malformed point: ") + e.what());
  }
}

json ExplainFactorToJson(const SweepSpec::ExplainFactor& f) {
  json pairs = json::array();
  for (Sync v : f.syncs) pairs.push_back({"sync", Name(v)});
  for (Pin v : f.pins) pairs.push_back({"pin", Name(v)});
  for (const auto& v : f.cpus) pairs.push_back({"cpus", v});
  for (StreamKind v : f.streams) pairs.push_back({"stream", Name(v)});
  for (H2dKind v : f.h2ds) pairs.push_back({"h2d", Name(v)});
  for (Concurrency v : f.concurrencies) pairs.push_back({"concurrency", Name(v)});
  return pairs;
}

json SpecToJson(const SweepSpec& s) {
  json factors = json::array();  // --explain: [[axis, value], ...] per factor
  for (const auto& f : s.explain_factors) factors.push_back(ExplainFactorToJson(f));
  json graphs = json::array();
  for (bool g : s.graphs) graphs.push_back(GraphName(g));
  json out = {{"backends", s.backends},
              {"ops", s.ops},
              {"algos", s.algos},
              {"dtypes", s.dtypes},
              {"reduces", s.reduces},
              {"sizes", s.sizes},
              {"groups", s.groups},
              {"group_sizes", s.group_sizes},
              {"in_place", Name(s.in_place)},
              {"syncs", Names(s.syncs)},
              {"concurrencies", Names(s.concurrencies)},
              {"ranks_per_process", s.ranks_per_process},
              {"pins", Names(s.pins)},
              {"cpus", s.cpus},
              {"streams", Names(s.streams)},
              {"h2ds", Names(s.h2ds)},
              {"h2d_bytes", s.h2d_bytes},
              {"graphs", graphs},
              {"iters", s.iters},
              {"warmup", s.warmup},
              {"time_budget_s", s.time_budget_s},
              {"target_ci", s.target_ci},
              {"check_rate", s.check_rate},
              {"min_iters", s.min_iters},
              {"max_iters", s.max_iters},
              {"sample_cap", s.sample_cap},
              {"repeats", s.repeats},
              {"timeout_s", s.timeout_s},
              {"max_world", s.max_world},
              {"host", s.host},
              {"iface", s.iface},
              {"launcher", Name(s.launcher)},
              {"test_only_slow_rank", s.test_only_slow_rank},
              {"test_only_hang_rank", s.test_only_hang_rank},
              {"test_only_uniform_slowdown", s.test_only_uniform_slowdown},
              {"explain_factors", factors}};
  if (s.group_by != GroupBy::kConsecutive)
    out["group_by"] = Name(s.group_by);  // absent: the default, as in older files
  if (!s.test_only_late_rank.empty()) out["test_only_late_rank"] = s.test_only_late_rank;  // likewise
  if (!s.time_budget_above.empty()) {                                                      // likewise
    json above = json::array();
    for (const auto& [bytes, seconds] : s.time_budget_above) above.push_back({{"bytes", bytes}, {"seconds", seconds}});
    out["time_budget_above"] = above;
  }
  return out;
}

}  // namespace commbench
