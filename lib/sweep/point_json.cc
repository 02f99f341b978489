#include "lib/sweep/point_json.h"

#include <nlohmann/json.hpp>

namespace commbench {

using nlohmann::json;

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
            {"sync", p.sync},
            {"concurrency", p.concurrency},
            {"ranks_per_process", p.ranks_per_process},
            {"pin", p.pin},
            {"cpus", p.cpus}};
  if (p.gpu_backend()) {
    j["stream"] = p.gpu.stream;
    j["h2d"] = p.gpu.h2d;
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
    p.sync = j.at("sync").get<std::string>();
    p.concurrency = j.at("concurrency").get<std::string>();
    p.ranks_per_process = j.at("ranks_per_process").get<int>();
    p.pin = j.at("pin").get<std::string>();
    p.cpus = j.at("cpus").get<std::string>();
    if (!j.at("stream").is_null()) p.gpu.stream = j.at("stream").get<std::string>();
    if (!j.at("h2d").is_null()) p.gpu.h2d = j.at("h2d").get<std::string>();
    p.gpu.h2d_bytes = j.at("h2d_bytes").get<uint64_t>();
    p.gpu.graph = j.at("graph").get<bool>();
    return p;
  } catch (const json::exception& e) {
    return InvalidArgument(std::string("malformed point: ") + e.what());
  }
}

json SpecToJson(const SweepSpec& s) {
  json factors = json::array();  // --explain: [[axis, value], ...] per factor
  for (const auto& f : s.explain_factors) {
    json pairs = json::array();
    for (const auto& [axis, value] : f.values) pairs.push_back({axis, value});
    factors.push_back(pairs);
  }
  return {{"backends", s.backends},
          {"ops", s.ops},
          {"algos", s.algos},
          {"dtypes", s.dtypes},
          {"reduces", s.reduces},
          {"sizes", s.sizes},
          {"groups", s.groups},
          {"group_sizes", s.group_sizes},
          {"in_place", s.in_place},
          {"syncs", s.syncs},
          {"concurrencies", s.concurrencies},
          {"ranks_per_process", s.ranks_per_process},
          {"pins", s.pins},
          {"cpus", s.cpus},
          {"streams", s.streams},
          {"h2ds", s.h2ds},
          {"h2d_bytes", s.h2d_bytes},
          {"graphs", s.graphs},
          {"iters", s.iters},
          {"warmup", s.warmup},
          {"time_budget_s", s.time_budget_s},
          {"target_ci", s.target_ci},
          {"min_iters", s.min_iters},
          {"max_iters", s.max_iters},
          {"sample_cap", s.sample_cap},
          {"timeout_s", s.timeout_s},
          {"max_world", s.max_world},
          {"host", s.host},
          {"iface", s.iface},
          {"launcher", s.launcher},
          {"test_only_slow_rank", s.test_only_slow_rank},
          {"explain_factors", factors}};
}

}  // namespace commbench
