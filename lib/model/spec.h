// SweepSpec: every axis of a sweep as lists, parsed from flags; the planner turns it into points (planner.h).
#pragma once

#include <cstdint>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "lib/core/axes.h"
#include "lib/core/loop_defaults.h"
#include "lib/core/status.h"

namespace commbench {

struct SweepSpec {
  // Axes (each a list; the sweep is their product, minus combinations a backend cannot run). Collectives, dtypes
  // and reductions stay as given (aliases such as "reduce-scatter" are recorded verbatim in the result file).
  std::vector<std::string> backends{"gloo"};
  std::vector<std::string> ops{"allreduce"};
  std::vector<std::string> algos{"auto"};  // names not known to a backend are skipped for it with a note
  std::vector<std::string> dtypes{"f32"};
  std::vector<std::string> reduces{"sum"};
  std::vector<uint64_t> sizes{400, 64 << 10, 1 << 20};  // bytes, as nccl-tests' "size"
  std::vector<int64_t> groups{1, 2, 3, 4, 5, 6, 7, 8};
  std::vector<int64_t> group_sizes{2};
  InPlace in_place = InPlace::kAuto;
  std::vector<Sync> syncs{Sync::kNone};
  std::vector<Concurrency> concurrencies{Concurrency::kConcurrent};
  std::vector<int64_t> ranks_per_process{1};
  std::vector<Pin> pins{Pin::kNone};
  std::vector<std::string> cpus{""};  // each value a CPU list ("0", "0-1"); "" = the inherited affinity
  // GPU axes.
  std::vector<StreamKind> streams{StreamKind::kDedicated};
  std::vector<H2dKind> h2ds{H2dKind::kNone};
  uint64_t h2d_bytes = 0;
  std::vector<bool> graphs{false};

  // Measurement.
  int64_t iters = 0;  // 0: adaptive (time budget and target CI width)
  int64_t warmup = loop_defaults::kWarmup;
  double time_budget_s = loop_defaults::kTimeBudgetS;  // per point, timed loop
  // --time-budget-above SIZE=SECONDS: points of at least SIZE bytes get that budget instead (the largest SIZE at or
  // below the point's wins). A large message's repeats spread with the outside load of a short window; a longer one
  // averages it (docs/gate.md, "The floor this runner resolves").
  std::map<uint64_t, double> time_budget_above;
  double target_ci = loop_defaults::kTargetCi;    // stop early once the 95% CI of the median is within +-5% of it
  double check_rate = loop_defaults::kCheckRate;  // share of the middle timed iterations checked (LoopOptions)
  int64_t min_iters = loop_defaults::kMinIters;
  int64_t max_iters = loop_defaults::kMaxIters;
  int64_t sample_cap = 2000;  // raw per-iteration samples kept per rank in the JSON
  // Independent repeats: every point runs this many times, each time in a fresh launch, interleaved (repeat 1 of
  // every point, then repeat 2, ...). The gate's evidence is one median per repeat (docs/design.md §7).
  int64_t repeats = 1;

  // Run control.
  double timeout_s = 60;  // per point: no progress for this long fails the run and names the ranks
  int64_t max_world = 128;
  std::string host = "127.0.0.1";
  std::string iface;
  Launcher launcher = Launcher::kLocal;
  GroupBy group_by = GroupBy::kConsecutive;  // other values need ranks on several hosts (SPMD mode)
  // Test-only fault injection: "RANK:MICROSECONDS" adds a sleep to that rank's every iteration.
  std::string test_only_slow_rank;
  // Test-only fault injection: "RANK:MICROSECONDS" makes that rank sleep before each timed iteration, outside the
  // clock: it arrives late at every op (issue 52's late arrival: the op's own time stays, its peers wait).
  std::string test_only_late_rank;
  // Test-only fault injection: "RANK:ITER" stops that rank for good before its timed iteration ITER of each point.
  std::string test_only_hang_rank;
  // Test-only fault injection: every rank spends this fraction of each clocked op's measured time again, spinning,
  // inside the clock (0.05: a uniform 5 % slowdown). 0: off.
  double test_only_uniform_slowdown = 0;

  // --explain: the axis values it added, as factors (a factor is a set of axis values that go together, e.g. a
  // dedicated stream with pinned memory). A point takes the values of at most one factor: each A/B varies one
  // thing from what was asked, and the additions do not multiply each other.
  struct ExplainFactor {
    std::vector<Sync> syncs;
    std::vector<Pin> pins;
    std::vector<std::string> cpus;
    std::vector<StreamKind> streams;  // GPU points only
    std::vector<H2dKind> h2ds;        // GPU points only
    std::vector<Concurrency> concurrencies;
    bool empty() const {
      return syncs.empty() && pins.empty() && cpus.empty() && streams.empty() && h2ds.empty() && concurrencies.empty();
    }
  };
  std::vector<ExplainFactor> explain_factors;
};

// The timed loop's budget for a point of `bytes`: `budget_s`, or the `above` entry (SIZE -> seconds) covering it.
inline double TimeBudgetFor(double budget_s, const std::map<uint64_t, double>& above, uint64_t bytes) {
  auto after = above.upper_bound(bytes);
  return after == above.begin() ? budget_s : std::prev(after)->second;
}
inline double TimeBudgetFor(const SweepSpec& spec, uint64_t bytes) {
  return TimeBudgetFor(spec.time_budget_s, spec.time_budget_above, bytes);
}

}  // namespace commbench
