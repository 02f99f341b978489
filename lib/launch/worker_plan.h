// The plan file the driver writes for one launch and every rank process reads: which ranks this process runs,
// the points in order, where to rendezvous and where to write results.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "lib/measure/loop.h"
#include "lib/sweep/planner.h"

namespace commbench {

struct WorkerPlan {
  int launch_index = 0;
  int world = 1;
  int ranks_per_process = 1;
  std::vector<Point> points;
  std::string store_dir;           // Gloo FileStore directory, private to this launch
  std::string results_dir;         // rank-<r>.jsonl: one line per finished point
  std::string host = "127.0.0.1";  // the address this process's transports bind and advertise
  std::string host_name;           // not in the file: each process fills in its own (gethostname)
  std::string iface;
  double timeout_s = 60;
  LoopOptions loop;                              // sync and injected delay are set per point / rank by the worker
  std::map<uint64_t, double> time_budget_above;  // SweepSpec::time_budget_above: the worker sets each point's budget
  int slow_rank = -1;                            // test-only fault injection
  double slow_rank_delay_us = 0;
  int late_rank = -1;  // test-only fault injection: sleeps before each timed iteration, outside the clock
  double late_rank_delay_us = 0;
  int hang_rank = -1;  // test-only fault injection: stops before timed iteration hang_at_iter
  int64_t hang_at_iter = 0;
  // SPMD: the launch's rank p runs in the process of launcher rank order[p] (groups are consecutive launch
  // ranks, so the order forms them: lib/launch/spmd.h GroupOrder). Empty: launch rank = process rank.
  std::vector<int> order;
  std::string progress_dir;  // each rank's progress page (lib/measure/progress.h)
  uint64_t check_seed = 0;   // the sampled checks' draws, the same on every rank
};

// The plan of one launch of a sweep: its points and the spec's measurement settings, with a fresh seed for the
// sampled checks. The caller fills in the directories (driver) or the store (SPMD).
WorkerPlan WorkerPlanFor(const Launch& launch, int launch_index, const SweepSpec& spec);

nlohmann::json WorkerPlanToJson(const WorkerPlan& plan);
StatusOr<WorkerPlan> WorkerPlanFromJson(const nlohmann::json& j);

std::string RankResultsPath(const std::string& results_dir, int rank);

}  // namespace commbench
