// Change points in one series of run values (one value per run, in run order): E-divisive means (Matteson and
// James 2014, as Apache Otava / Hunter use it) on the ranks of the values, each candidate kept only when a
// permutation test (shuffling whole runs) says so and it survives leaving any one run out. Ranks bound any one
// value's weight, a segment holds at least `min_segment` runs, and the leave-one-out check means one spike is
// never a change point. Where so few runs hold the split that no shuffle can reach alpha (8 runs split 4 and 4:
// p >= 2/70), Student's t over the two sides' run medians decides instead, when asked (as Otava tests every
// split). Pure functions, fixed seeds (docs/history.md).
#pragma once

#include <cstdint>
#include <vector>

namespace commbench::history {

// What places a detected change: the E-divisive statistic on the segment's ranks (as detection uses them) or on
// its values clipped to their 5th-95th percentiles. Ranks forget how far apart two levels are: the before-runs
// that happen to rank highest look like the start of the new level, so even a clean step is often placed a run
// or two early (docs/history.md, "Where a change starts").
enum class Locate { kValues, kRanks };

// Which test decided a split.
enum class SplitTest { kPermutation, kStudentT };
const char* Name(SplitTest t);

struct ChangePointOptions {
  double alpha = 0.01;     // a candidate is kept when its permutation p-value is <= alpha (docs/history.md: why)
  int permutations = 999;  // p = (1 + #{permuted statistic >= observed}) / (1 + permutations)
  int min_segment = 3;     // runs on each side of a change, at least
  Locate locate = Locate::kValues;
  int location_resamples = 400;       // bootstrap series behind each change's location set
  double location_confidence = 0.99;  // of that set: a bisection that starts outside it is wasted
  uint64_t seed = 1;
  // Where the permutation test cannot reach alpha at the best split (PermutationsCanDecide is false), decide it by
  // Student's t on the two sides' log run medians (StudentSplitP) instead of calling it never significant.
  // history check sets it; gate --history keeps the permutation test alone (its segments' runs are its baseline).
  bool student_t_when_short = false;
};

struct ChangePoint {
  int index = 0;         // the first run of the new level (0-based position in the series)
  double p = 1;          // the permutation test's p-value
  double statistic = 0;  // the E-divisive divergence at the split (on ranks)
  // Where the new level may start, 99 %: the runs [first_lo, first_hi] (first_lo <= index <= first_hi). A step
  // small beside the run-to-run noise cannot be placed to one run; these are the commits to bisect.
  int first_lo = 0, first_hi = 0;
  SplitTest test = SplitTest::kPermutation;  // which test found it (p is that test's)
};

struct Location {
  int index = 0;                   // the best split by the location statistic
  int first_lo = 0, first_hi = 0;  // the runs it may be, 99 % (first_lo <= index <= first_hi)
};

// Where a change detected in runs [begin, end) starts. The index maximizes the location statistic
// (options.locate) over the segment's splits; the set (options.location_confidence, 99 %) holds every split whose
// statistic falls below the best one's by no more than noise lets a wrong split rise above the true one. That
// margin is the 99th percentile, over options.location_resamples series with the step at the index by
// construction (runs before and after it each resampled whole, with replacement, from their own side), of the
// best split's statistic less the true split's.
Location LocateChange(const std::vector<std::vector<double>>& runs, int begin, int end,
                      const ChangePointOptions& options, uint64_t seed);

// The E-divisive divergence (Matteson-James, alpha = 1) between two samples: n m / (n + m) times
// (2 E|X - Y| - E|X - X'| - E|Y - Y'|).
double Divergence(const std::vector<double>& x, const std::vector<double>& y);

// Ranks (1-based, ties get their average rank).
std::vector<double> Ranks(const std::vector<double>& v);

// The smallest p the permutation test can give a split of `runs` runs with `after` of them after it: the share
// of run orders as extreme (2 / C(runs, after): the `after` highest last, or lowest), or 1 / (1 + permutations).
double SmallestPermutationP(int runs, int after, int permutations);
// Whether permutations can decide such a split at alpha: their smallest p is at most alpha / 2, so that the
// estimate from `permutations` shuffles can fall below alpha (at alpha itself it would about half the time), and
// so is it with one run of the shorter side left out (the leave-one-out check must pass too).
bool PermutationsCanDecide(int runs, int after, const ChangePointOptions& options);

// Student's t (pooled variance, as Otava's test) of the logs of two sides' run medians (each side >= 2 runs):
// two-sided p, times `splits` (Bonferroni: the split tested is the best of that many).
double StudentSplitP(const std::vector<double>& before, const std::vector<double>& after, int splits);

// The smallest relative step (0.2: 20 % slower) the check finds with probability `power` between `before` and
// `after` runs whose logs spread by `spread` (a standard deviation), a step of `before + after` runs: Student's t
// at alpha, over the splits such a series tries (before + after - 2 min_segment + 1) where t decides (Bonferroni,
// as StudentSplitP), over at most kSearchSplits where permutations decide (their maximum over correlated splits
// costs about what alpha / 10 costs a known split: docs/history.md, "Where the power goes"). Power 0.8: the
// resolution; 0.5: the size at which a step as measured reaches alpha. Infinite below 2 runs a side.
inline constexpr int kSearchSplits = 10;
double DetectableStep(int before, int after, double spread, const ChangePointOptions& options, double power = 0.8);

// One run's relative spread from a series of run medians that may hold steps and spikes: 1.4826 x the median
// absolute difference between consecutive runs' logs, over sqrt 2 (a step or a spike moves one or two of the
// differences, not their median). 0 below 2 runs.
double RunToRunSpread(const std::vector<double>& run_medians);

// The best split of runs [begin, end) (by the E-divisive statistic on ranks, as detection finds it) and whether
// the test says it is a change: the permutation test with leave-one-out, or Student's t where permutations
// cannot decide (options.student_t_when_short). index -1: no split leaves min_segment runs each side.
struct Split {
  int index = -1;  // the first run after the split
  double p = 1;
  double statistic = 0;  // the E-divisive divergence at it (on ranks)
  SplitTest test = SplitTest::kPermutation;
  bool significant = false;
};
Split TestBestSplit(const std::vector<std::vector<double>>& runs, int begin, int end,
                    const ChangePointOptions& options);

// All change points, in series order. `runs[i]` holds run i's values (its independent repeats); a split falls
// between runs, never inside one, with at least min_segment runs on each side. Each segment (initially the whole
// series) is tested: its best split on the ranks of all its values against `permutations` shuffles of the runs'
// order (each run keeping its repeats' ranks: runs, not repeats, are the exchangeable units); a significant split
// cuts the segment in two and both halves are tested in turn. A significant split is kept only when it stays above
// the permutations' critical value with any single run left out (one spike is not a change point).
// The permutation loop stops as soon as p can no longer reach alpha (p is then an estimate above alpha).
std::vector<ChangePoint> FindChangePoints(const std::vector<std::vector<double>>& runs,
                                          const ChangePointOptions& options = {});
// One value per run.
std::vector<ChangePoint> FindChangePoints(const std::vector<double>& series, const ChangePointOptions& options = {});

}  // namespace commbench::history
