// Change points in one series of run values (one value per run, in run order): E-divisive means (Matteson and
// James 2014, as Apache Otava / Hunter use it) on the ranks of the values, each candidate kept only when a
// permutation test (shuffling whole runs) says so and it survives leaving any one run out. Ranks bound any one
// value's weight, a segment holds at least `min_segment` runs, and the leave-one-out check means one spike is
// never a change point. Pure functions, fixed seeds (docs/history.md).
#pragma once

#include <cstdint>
#include <vector>

namespace commbench::history {

struct ChangePointOptions {
  double alpha = 0.01;     // a candidate is kept when its permutation p-value is <= alpha (docs/history.md: why)
  int permutations = 999;  // p = (1 + #{permuted statistic >= observed}) / (1 + permutations)
  int min_segment = 3;     // runs on each side of a change, at least
  uint64_t seed = 1;
};

struct ChangePoint {
  int index = 0;       // the first run of the new level (0-based position in the series)
  double p = 1;        // the permutation test's p-value
  double statistic = 0;  // the E-divisive divergence at the split (on ranks)
};

// The E-divisive divergence (Matteson-James, alpha = 1) between two samples: n m / (n + m) times
// (2 E|X - Y| - E|X - X'| - E|Y - Y'|).
double Divergence(const std::vector<double>& x, const std::vector<double>& y);

// Ranks (1-based, ties get their average rank).
std::vector<double> Ranks(const std::vector<double>& v);

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
