#include "lib/diagnose/test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "lib/diagnose/ab.h"
#include "lib/diagnose/diagnose.h"
#include "lib/model/point_json.h"

namespace commbench {
namespace diagnose {
namespace testing {

using nlohmann::json;

json MakePoint(const PointSpec& s) {
  json p = {{"backend", "gloo"}, {"op", "allreduce"}, {"algo", "ring"},         {"dtype", "f32"},
            {"reduce", "sum"},   {"sync", "none"},    {"ranks_per_process", 1}, {"pin", "none"},
            {"cpus", ""},        {"stream", nullptr}, {"h2d", nullptr},         {"h2d_bytes", 0},
            {"graph", false},    {"in_place", true},  {"transport", "tcp"}};  // Gloo's
  for (const auto& [k, v] : s.axes) p[k] = v;
  int world = s.groups * s.group_size;
  p["groups"] = s.groups;
  p["group_size"] = s.group_size;
  p["world"] = world;
  p["bytes"] = s.bytes;
  p["count"] = s.bytes / 4;
  p["iters"] = s.iters;
  p["warmup"] = 10;
  p["correct"] = true;
  p["errors"] = json::array();
  std::string id = p["backend"].get<std::string>() + "/allreduce/g" + std::to_string(s.groups) + "/k" +
                   std::to_string(s.group_size) + "/" + std::to_string(s.bytes) + "B";
  for (const char* k : {"sync", "pin", "cpus", "stream", "h2d", "graph", "concurrency", "ranks_per_process"}) {
    if (p.contains(k) && !p[k].is_null())
      id += std::string("/") + k + "=" + (p[k].is_string() ? p[k].get<std::string>() : p[k].dump());
  }
  p["id"] = id;
  double se = s.rel_se * s.p50_us;
  json t = {{"min", s.p50_us * 0.9},
            {"p50", s.p50_us},
            {"p95", s.p50_us * 1.1},
            {"p99", s.p50_us * s.p99_factor},
            {"max", s.p50_us * 2},
            {"mean", s.p50_us},
            // The fits read the mean's standard error, stddev / sqrt(n): make it `se` whatever the iterations.
            {"stddev", se * std::sqrt(std::max(s.iters, 1.0))},
            {"cv", 0.1},
            {"ci95_lo", s.p50_us - 1.96 * se},
            {"ci95_hi", s.p50_us + 1.96 * se},
            {"n", s.iters}};
  p["time_us"] = t;
  p["time_us_rank_mean"] = t;
  p["device_time_us"] = nullptr;
  p["busbw_gbps"] = s.busbw_gbps;
  p["algbw_gbps"] = s.busbw_gbps;
  p["aggregate_busbw_gbps"] = s.busbw_gbps * s.groups;
  p["aggregate_algbw_gbps"] = s.busbw_gbps * s.groups;
  double wall = s.p50_us * s.iters / 1e6;
  p["wall_s"] = wall;
  p["cpu"] = {{"cpu_s_total", s.saturation * s.cores * wall},
              {"cores_available", s.cores},
              {"saturation", s.saturation},
              {"threads_per_core", world / (s.cpu_quota > 0 ? std::min(s.cores, s.cpu_quota) : s.cores)},
              {"vol_ctx_per_iter", s.vol_ctx_per_iter},
              {"invol_ctx_per_iter", s.invol_ctx_per_iter}};
  if (s.runqueue_wait_us_per_iter >= 0) p["cpu"]["runqueue_wait_us_per_iter"] = s.runqueue_wait_us_per_iter;
  if (s.cpu_quota > 0) p["cpu"]["cpu_quota"] = s.cpu_quota;
  if (s.throttled_share >= 0) p["cpu"]["throttled_share"] = s.throttled_share;
  p["skew"] = {
      {"start_skew_us", s.start_skew_us}, {"slowest_group", s.slowest_group}, {"slowest_rank", s.slowest_rank}};
  json groups = json::array();
  for (int g = 0; g < s.groups; ++g) {
    double v = g < static_cast<int>(s.group_p50.size()) ? s.group_p50[static_cast<size_t>(g)] : s.p50_us;
    groups.push_back({{"group", g}, {"p50_us", v}, {"mean_us", v}});
  }
  p["per_group"] = groups;
  json ranks = json::array();
  for (int r = 0; r < world; ++r) {
    ranks.push_back({{"rank", r},
                     {"group", r / s.group_size},
                     {"group_rank", r % s.group_size},
                     {"pid", 1000 + r},
                     {"time_us", t},
                     {"cpu_user_s", 0.1},
                     {"cpu_sys_s", 0.05},
                     {"vol_ctx", s.vol_ctx_per_iter * s.iters},
                     {"invol_ctx", s.invol_ctx_per_iter * s.iters},
                     {"affinity", "0-1"},
                     {"setup_s", s.setup_s}});
  }
  p["per_rank"] = ranks;
  return p;
}

std::vector<json> MakeSeries(const PointSpec& base, const std::vector<int>& groups,
                             const std::function<double(int)>& p50, const std::function<void(int, PointSpec*)>& tweak) {
  std::vector<json> out;
  for (int g : groups) {
    PointSpec s = base;
    s.groups = g;
    s.p50_us = p50(g);
    if (tweak) tweak(g, &s);
    out.push_back(MakePoint(s));
  }
  return out;
}

json MakeResult(const std::vector<std::vector<json>>& series, const std::string& command, double memcpy_gbps,
                double tcp_gbps) {
  json r;
  r["schema_version"] = 1;
  r["tool"] = {{"name", "commbench"}, {"version", "0.1.0"}, {"commit", "test"}};
  r["command"] = command;
  r["started_at"] = "2026-11-23T00:00:00Z";
  r["duration_s"] = 1.0;
  r["spec"] = SpecToJson(SweepSpec());
  r["environment"] = {{"host", "test"},
                      {"cpu_model", "test"},
                      {"cores_online", 2},
                      {"affinity", "0-1"},
                      {"variables", json::object()},
                      {"peaks", {{"memcpy_gbps", memcpy_gbps}, {"tcp_loopback_gbps", tcp_gbps}}}};
  r["skipped"] = json::array();
  r["fits"] = json::array();
  r["findings"] = json::array();
  r["verdict"] = "insufficient data";
  r["points"] = json::array();
  for (const auto& s : series) {
    for (const json& p : s) r["points"].push_back(p);
  }
  r["status"] = "complete";
  return r;
}

result::ResultFile ReadSynthetic(const json& result) {
  auto file = result::ReadResultFile(result);
  EXPECT_TRUE(file.ok()) << "the synthetic result breaks the schema: " << file.status().message();
  return file.ok() ? *file : result::ResultFile{};
}

void InterleaveSweepPairs(AnalysisInput* in) {
  for (size_t x = 0; x < in->series.size(); ++x) {
    for (size_t y = x + 1; y < in->series.size(); ++y) {
      const SeriesData& a = in->series[x];
      const SeriesData& b = in->series[y];
      if (DifferingAxes(a, b).size() != 1 || in->InterleavedFor(static_cast<int>(x), static_cast<int>(y))) continue;
      InterleavedAb ab{static_cast<int>(x), static_cast<int>(y), {}};
      for (size_t i = 0; i < a.groups.size(); ++i) {
        auto j = std::find(b.groups.begin(), b.groups.end(), a.groups[i]);
        if (j == b.groups.end()) continue;
        const PointData& pa = in->Point(a, i);
        const PointData& pb = in->Point(b, static_cast<size_t>(j - b.groups.begin()));
        auto outside = [](const PointData& p) { return p.host_load ? p.host_load->OutsideCpus() : -1.0; };
        // Each round's launch off its point by one standard error, up, down or not, in turns that differ between
        // group counts and sides: rounds spread as independent launches of a point would.
        static constexpr double kTurns[kSyntheticRounds] = {1, -1, 0};
        for (int round = 0; round < kSyntheticRounds; ++round) {
          const double za = kTurns[(static_cast<size_t>(round) + i) % kSyntheticRounds];
          const double zb = kTurns[(static_cast<size_t>(round) + i + 1) % kSyntheticRounds];
          ab.rounds.push_back({round,
                               pa.groups,
                               round % 2 == 0,
                               {pa.id, pa.p50_us + za * pa.se_us, pa.se_us, outside(pa)},
                               {pb.id, pb.p50_us + zb * pb.se_us, pb.se_us, outside(pb)}});
        }
      }
      in->interleaved.push_back(std::move(ab));
    }
  }
}

AnalysisInput InputOf(const result::ResultFile& file) {
  AnalysisInput in = diagnose::BuildAnalysisInput(file.points, file.header.command, file.header.environment, {},
                                                  file.trailer.explain ? file.trailer.explain->first_phase_points : -1);
  if (file.trailer.explain) AttachInterleaved(*file.trailer.explain, &in);
  return in;
}

result::Diagnosis DiagnoseTyped(const json& result) {
  AnalysisInput in = InputOf(ReadSynthetic(result));
  InterleaveSweepPairs(&in);
  return Run(in);
}

result::Diagnosis DiagnoseInSweepOrder(const json& result) { return Run(InputOf(ReadSynthetic(result))); }

json Diagnose(const json& result) {
  result::ResultTrailer trailer;
  trailer.diagnosis = DiagnoseTyped(result);
  json written = result::TrailerToJson(trailer);
  json out = {{"fits", written["fits"]},
              {"findings", written["findings"]},
              {"ruled_out", written["ruled_out"]},
              {"verdict", written["verdict"]},
              {"excluded_points", written["excluded_points"]}};
  if (written.contains("caveats")) out["caveats"] = written["caveats"];
  return out;
}

AnalysisInput BuildAnalysisInput(const json& result) {
  AnalysisInput in = InputOf(ReadSynthetic(result));
  InterleaveSweepPairs(&in);
  return in;
}

const std::vector<int>& OneToEight() {
  static const std::vector<int> g = {1, 2, 3, 4, 5, 6, 7, 8};
  return g;
}

nlohmann::json PlantedBarrierOnTwoCores() {
  PointSpec base;
  base.cores = 2;
  base.saturation = 0.95;
  PointSpec barrier = base;
  barrier.axes["sync"] = "world-barrier";
  return MakeResult({MakeSeries(barrier, OneToEight(), [](int g) { return 40.0 + 60 * g; }),
                     MakeSeries(base, OneToEight(), [](int g) { return 40.0 + 10 * g; })},
                    "commbench sweep --groups 1..8 --sync world-barrier,none");
}

}  // namespace testing
}  // namespace diagnose
}  // namespace commbench
