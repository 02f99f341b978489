// Builds synthetic result JSON for the diagnosis tests: points in the result format with every axis, so that
// each test plants one signature in otherwise ordinary data.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "lib/diagnose/analysis_input.h"
#include "lib/result/result_file.h"

namespace commbench {
namespace diagnose {
namespace testing {

struct PointSpec {
  std::map<std::string, nlohmann::json> axes;  // overrides of the default axes (gloo allreduce ring f32 ...)
  int groups = 1;
  int group_size = 2;
  int64_t bytes = 400;
  double p50_us = 100;
  double rel_se = 0.01;  // standard error of the median as a fraction of p50 (sets the CI)
  double p99_factor = 1.2;
  double cores = 2;
  double saturation = 0.5;
  double vol_ctx_per_iter = 0;            // per rank per iteration
  double invol_ctx_per_iter = 0;          // per rank per iteration
  double runqueue_wait_us_per_iter = -1;  // the most any rank waited for a CPU, per iteration; -1: not recorded
  double cpu_quota = 0;                   // the ranks' cgroup CPU limit in CPUs; 0: none
  double throttled_share = -1;            // periods their cgroup ran out of quota; -1: not recorded
  double setup_s = 0.02;
  double busbw_gbps = 0.01;       // per group
  std::vector<double> group_p50;  // empty: every group at p50_us
  int slowest_group = 0, slowest_rank = 0;
  double start_skew_us = 5;
  double iters = 1000;
};

nlohmann::json MakePoint(const PointSpec& spec);

// One point per G in `groups`: `base` with groups = G, p50 = p50(G), then `tweak` (may be empty).
std::vector<nlohmann::json> MakeSeries(const PointSpec& base, const std::vector<int>& groups,
                                       const std::function<double(int)>& p50,
                                       const std::function<void(int, PointSpec*)>& tweak = {});

nlohmann::json MakeResult(const std::vector<std::vector<nlohmann::json>>& series, const std::string& command,
                          double memcpy_gbps = 10, double tcp_gbps = 4);

// The synthetic result through the edge every result file goes through: read (a schema violation fails the
// test), diagnosed, and the diagnosis written as the result file writes it: {fits, findings, ruled_out, verdict}.
result::ResultFile ReadSynthetic(const nlohmann::json& result);
// Every pair of series that differ in one axis, as if --explain had measured it interleaved: kSyntheticRounds
// rounds at every group count both have, each launch one standard error of its point above, below or at it. The rules'
// tests plant signatures, not a host's drift; the tests of interleaving itself build rounds of their own (or none:
// DiagnoseInSweepOrder).
inline constexpr int kSyntheticRounds = 3;
void InterleaveSweepPairs(AnalysisInput* in);
// What the diagnosis reads of a file: its points and the rounds its explain record holds.
AnalysisInput InputOf(const result::ResultFile& file);
// As Diagnose, without interleaved rounds: the sweep's pairs alone, measured one after the other.
result::Diagnosis DiagnoseInSweepOrder(const nlohmann::json& result);
nlohmann::json Diagnose(const nlohmann::json& result);
result::Diagnosis DiagnoseTyped(const nlohmann::json& result);
AnalysisInput BuildAnalysisInput(const nlohmann::json& result);

const std::vector<int>& OneToEight();

// A 2-core machine where every series is oversubscribed, with a world barrier planted in one of them (40 + 60 us
// per group against 40 + 10 without it): the result of `sweep --groups 1..8 --sync world-barrier,none`.
nlohmann::json PlantedBarrierOnTwoCores();

}  // namespace testing
}  // namespace diagnose
}  // namespace commbench
