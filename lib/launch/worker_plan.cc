#include "lib/launch/worker_plan.h"

#include <nlohmann/json.hpp>
#include <random>

#include "lib/model/point_json.h"

namespace commbench {

using nlohmann::json;

namespace {

// [{"bytes": 262144, "seconds": 0.4}, ...]
json BudgetsToJson(const std::map<uint64_t, double>& budgets) {
  json out = json::array();
  for (const auto& [bytes, seconds] : budgets) out.push_back({{"bytes", bytes}, {"seconds", seconds}});
  return out;
}

std::map<uint64_t, double> BudgetsFromJson(const json& j) {
  std::map<uint64_t, double> out;
  for (const json& b : j) out[b.at("bytes").get<uint64_t>()] = b.at("seconds").get<double>();
  return out;
}

}  // namespace

json WorkerPlanToJson(const WorkerPlan& p) {
  json points = json::array();
  for (const auto& point : p.points) points.push_back(PointToJson(point));
  return {{"launch_index", p.launch_index},
          {"world", p.world},
          {"ranks_per_process", p.ranks_per_process},
          {"points", points},
          {"store_dir", p.store_dir},
          {"results_dir", p.results_dir},
          {"host", p.host},
          {"iface", p.iface},
          {"timeout_s", p.timeout_s},
          {"loop",
           {{"warmup", p.loop.warmup},
            {"iters", p.loop.iters},
            {"time_budget_s", p.loop.time_budget_s},
            {"target_ci", p.loop.target_ci},
            {"check_rate", p.loop.check_rate},
            {"min_iters", p.loop.min_iters},
            {"max_iters", p.loop.max_iters},
            {"uniform_slowdown", p.loop.uniform_slowdown}}},
          {"slow_rank", p.slow_rank},
          {"slow_rank_delay_us", p.slow_rank_delay_us},
          {"late_rank", p.late_rank},
          {"late_rank_delay_us", p.late_rank_delay_us},
          {"hang_rank", p.hang_rank},
          {"hang_at_iter", p.hang_at_iter},
          {"progress_dir", p.progress_dir},
          {"check_seed", p.check_seed},
          {"order", p.order},
          {"time_budget_above", BudgetsToJson(p.time_budget_above)}};
}

StatusOr<WorkerPlan> WorkerPlanFromJson(const json& j) {
  try {
    WorkerPlan p;
    p.launch_index = j.at("launch_index").get<int>();
    p.world = j.at("world").get<int>();
    p.ranks_per_process = j.at("ranks_per_process").get<int>();
    for (const auto& point : j.at("points")) {
      ASSIGN_OR_RETURN(Point parsed, PointFromJson(point));
      p.points.push_back(parsed);
    }
    p.store_dir = j.at("store_dir").get<std::string>();
    p.results_dir = j.at("results_dir").get<std::string>();
    p.host = j.at("host").get<std::string>();
    p.iface = j.at("iface").get<std::string>();
    p.timeout_s = j.at("timeout_s").get<double>();
    const json& loop = j.at("loop");
    p.loop.warmup = loop.at("warmup").get<int64_t>();
    p.loop.iters = loop.at("iters").get<int64_t>();
    p.loop.time_budget_s = loop.at("time_budget_s").get<double>();
    p.loop.target_ci = loop.at("target_ci").get<double>();
    p.loop.check_rate = loop.at("check_rate").get<double>();
    p.loop.min_iters = loop.at("min_iters").get<int64_t>();
    p.loop.max_iters = loop.at("max_iters").get<int64_t>();
    p.loop.uniform_slowdown = loop.value("uniform_slowdown", 0.0);
    p.slow_rank = j.at("slow_rank").get<int>();
    p.slow_rank_delay_us = j.at("slow_rank_delay_us").get<double>();
    p.late_rank = j.value("late_rank", -1);
    p.late_rank_delay_us = j.value("late_rank_delay_us", 0.0);
    p.hang_rank = j.at("hang_rank").get<int>();
    p.hang_at_iter = j.at("hang_at_iter").get<int64_t>();
    p.progress_dir = j.at("progress_dir").get<std::string>();
    p.check_seed = j.at("check_seed").get<uint64_t>();
    p.order = j.value("order", std::vector<int>{});
    p.time_budget_above = BudgetsFromJson(j.value("time_budget_above", json::array()));
    return p;
  } catch (const json::exception& e) {
    return InvalidArgument(std::string("malformed worker plan: ") + e.what());
  }
}

WorkerPlan WorkerPlanFor(const Launch& launch, int launch_index, const SweepSpec& spec) {
  WorkerPlan plan;
  plan.launch_index = launch_index;
  plan.world = launch.world;
  plan.ranks_per_process = launch.ranks_per_process;
  plan.points = launch.points;
  plan.host = spec.host;
  plan.iface = spec.iface;
  plan.timeout_s = spec.timeout_s;
  plan.loop.warmup = spec.warmup;
  plan.loop.iters = spec.iters;
  plan.loop.time_budget_s = spec.time_budget_s;
  plan.time_budget_above = spec.time_budget_above;
  plan.loop.target_ci = spec.target_ci;
  plan.loop.check_rate = spec.check_rate;
  plan.loop.min_iters = spec.min_iters;
  plan.loop.max_iters = spec.max_iters;
  plan.loop.uniform_slowdown = spec.test_only_uniform_slowdown;
  // The test-only flags were checked when the spec was made (RANK:VALUE).
  if (!spec.test_only_slow_rank.empty()) {
    const std::string& s = spec.test_only_slow_rank;
    plan.slow_rank = std::stoi(s.substr(0, s.find(':')));
    plan.slow_rank_delay_us = std::stod(s.substr(s.find(':') + 1));
  }
  if (!spec.test_only_late_rank.empty()) {
    const std::string& s = spec.test_only_late_rank;
    plan.late_rank = std::stoi(s.substr(0, s.find(':')));
    plan.late_rank_delay_us = std::stod(s.substr(s.find(':') + 1));
  }
  if (!spec.test_only_hang_rank.empty()) {
    const std::string& s = spec.test_only_hang_rank;
    plan.hang_rank = std::stoi(s.substr(0, s.find(':')));
    plan.hang_at_iter = std::stoll(s.substr(s.find(':') + 1));
  }
  plan.check_seed = std::random_device{}();
  return plan;
}

std::string RankResultsPath(const std::string& results_dir, int rank) {
  return results_dir + "/rank-" + std::to_string(rank) + ".jsonl";
}

}  // namespace commbench
