// Was one repeat measured while something else held the ranks' CPUs? (docs/gate.md, "Disturbed repeats".) The
// evidence is what each repeat's result already records: the CPU time processes outside the run took on the CPUs
// the ranks could use over the timed window (points[].host_load), and how long the ranks waited on a run queue
// per timed iteration (points[].cpu.runqueue_wait_us_per_iter), and how often each rank's thread moved between CPUs
// (points[].per_rank[].migrations). Migrations alone do not disturb a repeat: an unpinned rank's scheduler moves it
// freely, and their cost already shows in its time. A rank allowed one CPU (--pin, a one-CPU --cpus) cannot move
// unless something changed its affinity or took its CPU offline: it ran somewhere other than where it was placed,
// so that does disturb the repeat. A disturbed repeat is not judged: the gate runs it again, within a bound, and
// names it. Pure functions.
#pragma once

#include <cstdint>
#include <string>

#include "lib/result/point_result.h"

namespace commbench::gate {

struct DisturbanceRule {
  // Outside processes' CPU time on the ranks' CPUs, as a share of those CPUs over the window, at or above which
  // the repeat is disturbed (0.10: a tenth of the ranks' CPU time went to someone else).
  double outside_share = 0.10;
  // The ranks' run-queue wait per timed iteration, as a share of the repeat's median time per operation, at or
  // above which the repeat is disturbed, when outside processes also took at least `runqueue_witness` of the
  // ranks' CPUs. Alone, the wait is not another's doing: a pinned Gloo rank's own I/O thread queues behind its main
  // thread on its one CPU, as do ranks sharing CPUs by the run's design (on this quiet 2-core VM the ranks of 9 in 10
  // configs/gate/ci.yaml repeats waited 18 % of an operation or more, with outside processes at 0-3 %).
  double runqueue_share = 0.10;
  double runqueue_witness = 0.05;
};

struct Disturbance {
  bool disturbed = false;
  double outside_share = 0;   // as in the rule; 0 when the repeat has no host_load
  double runqueue_share = 0;  // as in the rule; 0 when not recorded
  int64_t migrations = -1;    // the most any rank moved between CPUs (cpu.migrations); -1 when not recorded
  std::string why;            // "outside processes took 23 % of the ranks' CPUs (make, pid 12)", "" when not
};

// One repeat's point (a result of one launch) judged by `rule`; `affinity` is the run's (the ranks' CPUs when the
// point names none).
Disturbance JudgeRepeat(const result::PointResult& repeat, const std::string& affinity,
                        const DisturbanceRule& rule = {});

}  // namespace commbench::gate
