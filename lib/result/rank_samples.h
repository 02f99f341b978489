// What one rank measured in one point: the record a worker sends to the driver (one JSON line per finished
// point in its results file) and aggregation reads.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "lib/core/axes.h"
#include "lib/core/status.h"
#include "lib/result/phases.h"
#include "lib/result/rank_traffic.h"

namespace commbench::result {

struct RankSamples {
  int point_index = 0;  // position of the point in the launch's plan
  std::string point_id;
  int rank = 0, group = 0, group_rank = 0;
  // The process's own rank as its launcher numbered it (--rank, SLURM_PROCID, ...): differs from `rank` where a
  // launch places ranks in another order (WorkerPlan::order); -1 in lines written before it was recorded.
  int process_rank = -1;
  int pid = 0;
  std::string host;     // the rank's machine name
  std::string address;  // the address its transports used
  // The transport its communicator moved bytes over (Communicator::transport); kUnknown where the backend does not
  // say (its declared one applies) and in lines written before it was recorded.
  Transport transport = Transport::kUnknown;
  bool correct = true;
  std::string error;          // the first check failure, when !correct
  int64_t checked_iters = 0;  // timed iterations whose output was checked (first, last and a random sample)
  std::string algo;           // what actually ran ("auto" resolved)
  int64_t warmup = 0;
  std::vector<double> samples_us;         // host clock, one per timed iteration
  std::vector<double> device_samples_us;  // CUDA events (GPU backends), else empty
  int64_t start_ns = 0, end_ns = 0;       // CLOCK_MONOTONIC around the timed loop
  // --- Arrivals (issue 52): when the rank entered each timed iteration, ns since start_ns, one per samples_us
  // entry (RankResult::entry_ns); empty in lines written before they were recorded.
  std::vector<int64_t> entry_ns;
  // This rank's share of its process's rusage over the timed loop (the process's ranks run the same loop).
  double cpu_user_s = 0, cpu_sys_s = 0;
  double vol_ctx = 0, invol_ctx = 0;
  // This rank's thread, runnable without a CPU over the timed loop (lib/measure/run_queue.h); -1: not known
  // (the kernel does not say, or a line written before it was recorded).
  double runqueue_wait_s = -1;
  // How often this rank's thread moved between CPUs over the timed loop (se.nr_migrations); -1: not known, as above.
  int64_t migrations = -1;
  // Its process's cgroup CPU limit in CPUs (0: none), and the share of that cgroup's enforcement periods over the
  // timed loop in which it ran out of quota (-1: no limit to read, or a line written before it was recorded).
  double cpu_quota = 0;
  double throttled_share = -1;
  std::string affinity;  // CPU list the rank could run on
  double setup_s = 0;    // communicator set-up, the first time this rank used it
  // --- communicator memory (issue 52) ---
  // What connecting this rank's communicator grew its process's resident memory by (VmRSS after less before,
  // the first time it used it). Ranks that share a process (--ranks-per-process) connect at once, so each sees
  // the others' growth too: aggregation counts each process once (its largest figure). -1: not recorded.
  int64_t comm_rss_bytes = -1;
  // Device memory its communicator took (Communicator::device_memory_bytes); -1 on CPU backends and older lines.
  int64_t comm_device_bytes = -1;
  // --- end communicator memory ---
  std::optional<RankTraffic> traffic;  // over the timed loop; absent where nothing measured it (and older lines)
  RankPhases phases;                   // where the point's time went on this rank (zeros in lines written before)
};

std::string RankSamplesToJsonLine(const RankSamples& r);  // one line, no newline
StatusOr<RankSamples> ReadRankSamples(const nlohmann::json& j);
// Parses and reads one line; InvalidArgument names the problem ("rank line: samples_us[3]: expected a number").
StatusOr<RankSamples> ParseRankSamplesLine(const std::string& line);

}  // namespace commbench::result
