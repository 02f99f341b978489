// Is the new job one more run of main's history? `gate --history` holds one value per run of main (the median of
// that run's repeats), and the new job's repeats share that job's state (its placement, its spell of the host):
// weighed repeat by repeat against run values, a job's own offset counts as many repeats' evidence (2 of 20 A/A
// jobs exited 1 on this VM, docs/history.md "Gate with history"). So the new job is judged as one more run: its
// median against a prediction interval over the runs' medians (log scale, Student's t with K - 1 degrees of
// freedom), which holds the false alarms at alpha whatever the run-to-run spread.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "lib/gate/decision.h"

namespace commbench::gate {

// A stored baseline's other jobs of its build, with the baseline's own: the least from which a job-to-job spread
// can be told (compare.h's base_jobs_us, host_shift.h's JudgeHostAgainstJobs).
inline constexpr size_t kLeastOtherJobs = 2;

// Two-sided p of Student's t statistic `t` with `df` > 0 degrees of freedom.
double StudentTwoSidedP(double t, double df);
// The t for which StudentTwoSidedP(t, df) == p (0 < p < 1).
double StudentQuantileTwoSided(double p, double df);

// The runs' relative spread: the standard deviation of their logs (at least 2 runs).
double LogSpread(const std::vector<double>& runs);

// The smallest change K = runs.size() runs of their spread can tell at options.alpha with options.power (infinite
// below 3 runs): what DecideAgainstRuns reports as detectable, whatever the new job.
double DetectableAgainstRuns(const std::vector<double>& runs, const DecisionOptions& options);

// `runs`: one value per run of the baseline (at least 3); `now`: this job's repeats. The ratio is median(now) over
// the runs' geometric mean, its interval the 95 % prediction interval's, `test.p` the t test's; slower / faster /
// unchanged / inconclusive as Decide says them (JudgeChange), with the smallest change K runs of this spread can
// tell. `runs_are` names the runs in a reason ("the runs of main spread too much: ...").
Decision DecideAgainstRuns(const std::vector<double>& runs, const std::vector<double>& now,
                           const DecisionOptions& options = {}, const std::string& runs_are = "the runs of main");

}  // namespace commbench::gate
