#include "lib/measure/aggregate.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "lib/stats/bandwidth.h"
#include "lib/stats/summary.h"
#include "lib/sweep/point_json.h"

namespace commbench {

using nlohmann::json;

namespace {

json SummaryJson(const Summary& s) {
  return {{"n", s.n},       {"min", s.min},       {"p50", s.p50},         {"p95", s.p95},
          {"p99", s.p99},   {"max", s.max},       {"mean", s.mean},       {"stddev", s.stddev},
          {"cv", s.cv},     {"ci95_lo", s.ci95_lo}, {"ci95_hi", s.ci95_hi}};
}

std::vector<double> Samples(const json& rank, const char* key) {
  return rank.contains(key) ? rank.at(key).get<std::vector<double>>() : std::vector<double>{};
}

}  // namespace

json AggregatePoint(const Point& point, const std::vector<json>& ranks, const AggregateOptions& options) {
  json out = PointToJson(point);
  std::vector<std::vector<double>> host, device;
  json errors = json::array();
  bool correct = true;
  double cpu_total = 0, vol = 0, invol = 0;
  int64_t start_min = INT64_MAX, start_max = INT64_MIN, end_max = INT64_MIN;
  json per_rank = json::array();
  json capped = json::array();
  size_t iters = 0;
  for (const json& r : ranks) {
    host.push_back(Samples(r, "samples_us"));
    auto d = Samples(r, "device_samples_us");
    if (!d.empty()) device.push_back(d);
    iters = std::max(iters, host.back().size());
    if (!r.value("correct", false)) {
      correct = false;
      errors.push_back("rank " + std::to_string(r.value("rank", -1)) + ": " + r.value("error", std::string("?")));
    }
    double cpu = r.value("cpu_user_s", 0.0) + r.value("cpu_sys_s", 0.0);
    cpu_total += cpu;
    vol += r.value("vol_ctx", 0.0);
    invol += r.value("invol_ctx", 0.0);
    int64_t start = r.value("start_ns", int64_t{0}), end = r.value("end_ns", int64_t{0});
    start_min = std::min(start_min, start);
    start_max = std::max(start_max, start);
    end_max = std::max(end_max, end);
    per_rank.push_back({{"rank", r.value("rank", -1)},
                        {"group", r.value("group", -1)},
                        {"group_rank", r.value("group_rank", -1)},
                        {"pid", r.value("pid", 0)},
                        {"time_us", SummaryJson(Summarize(host.back()))},
                        {"cpu_user_s", r.value("cpu_user_s", 0.0)},
                        {"cpu_sys_s", r.value("cpu_sys_s", 0.0)},
                        {"vol_ctx", r.value("vol_ctx", 0.0)},
                        {"invol_ctx", r.value("invol_ctx", 0.0)},
                        {"affinity", r.value("affinity", std::string())},
                        {"setup_s", r.value("setup_s", 0.0)},
                        {"wall_s", static_cast<double>(end - start) * 1e-9}});
    size_t keep = std::min(host.back().size(), static_cast<size_t>(options.sample_cap));
    capped.push_back(std::vector<double>(host.back().begin(), host.back().begin() + static_cast<long>(keep)));
  }
  if (!ranks.empty()) out["algo"] = ranks.front().value("algo", point.algo);
  out["iters"] = iters;
  out["warmup"] = ranks.empty() ? 0 : ranks.front().value("warmup", 0);
  out["correct"] = correct;
  out["errors"] = errors;

  // Each group's own per-iteration max (its ranks' times, iteration by iteration).
  std::vector<std::vector<double>> group_series;
  for (int g = 0; g < point.groups; ++g) {
    std::vector<std::vector<double>> members;
    for (size_t r = 0; r < host.size(); ++r) {
      if (static_cast<int>(r) / point.group_size == g) members.push_back(host[r]);
    }
    group_series.push_back(ElementwiseMax(members));
  }
  // What the job feels: the slowest rank, iteration by iteration. Groups taking turns run their iterations at
  // different times, so pairing group A's iteration i with group B's would compare unrelated moments (and
  // compound their tails): there the samples are each group's own per-iteration times, pooled.
  std::vector<double> job_samples;
  if (point.concurrency == Concurrency::kSequential) {
    for (const auto& g : group_series) job_samples.insert(job_samples.end(), g.begin(), g.end());
  } else {
    job_samples = ElementwiseMax(host);
  }
  Summary job = Summarize(job_samples);
  out["time_us"] = SummaryJson(job);
  out["time_us_rank_mean"] = SummaryJson(Summarize(ElementwiseMean(host)));
  out["device_time_us"] = device.empty() ? json(nullptr) : SummaryJson(Summarize(ElementwiseMax(device)));

  Bandwidth bw = ComputeBandwidth(point.op, point.bytes, point.group_size, job.p50);
  out["algbw_gbps"] = bw.algbw_gbps;
  out["busbw_gbps"] = bw.busbw_gbps;
  // Together the groups that run at once: all of them, or one when they take turns.
  const int at_once = point.concurrency == Concurrency::kSequential ? 1 : point.groups;
  out["aggregate_algbw_gbps"] = bw.algbw_gbps * at_once;
  out["aggregate_busbw_gbps"] = bw.busbw_gbps * at_once;

  double wall_s = ranks.empty() ? 0 : static_cast<double>(end_max - start_min) * 1e-9;
  out["wall_s"] = wall_s;
  const double cores = std::max(options.cores_available, 1);
  const double per_iter = iters ? 1.0 / static_cast<double>(iters) / std::max<double>(ranks.size(), 1) : 0;
  out["cpu"] = {{"cpu_s_total", cpu_total},
                {"cores_available", options.cores_available},
                {"saturation", wall_s > 0 ? cpu_total / (cores * wall_s) : 0.0},
                {"threads_per_core", static_cast<double>(ranks.size()) / cores},
                {"vol_ctx_per_iter", vol * per_iter},
                {"invol_ctx_per_iter", invol * per_iter}};

  // Per group: the group's own per-iteration max; the slowest group and rank by median.
  json per_group = json::array();
  int slowest_group = 0, slowest_rank = 0;
  double slowest_group_p50 = -1, slowest_rank_p50 = -1;
  for (int g = 0; g < point.groups; ++g) {
    Summary s = Summarize(group_series[static_cast<size_t>(g)]);
    per_group.push_back({{"group", g}, {"p50_us", s.p50}, {"mean_us", s.mean}});
    if (s.p50 > slowest_group_p50) {
      slowest_group_p50 = s.p50;
      slowest_group = g;
    }
  }
  for (size_t r = 0; r < host.size(); ++r) {
    // Peers of a slow rank wait for it, so their medians rise too: the group is the reliable signal, the rank
    // a hint.
    double p50 = per_rank[r]["time_us"]["p50"].get<double>();
    if (p50 > slowest_rank_p50) {
      slowest_rank_p50 = p50;
      slowest_rank = static_cast<int>(r);
    }
  }
  out["per_group"] = per_group;
  out["skew"] = {{"start_skew_us", ranks.empty() ? 0.0 : static_cast<double>(start_max - start_min) * 1e-3},
                 {"slowest_group", slowest_group},
                 {"slowest_rank", slowest_rank}};
  out["per_rank"] = per_rank;
  out["samples_us"] = {{"cap", options.sample_cap}, {"per_rank", capped}};
  return out;
}

}  // namespace commbench
