#include "lib/history/changepoint.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "lib/gate/one_more_run.h"

namespace commbench::history {
namespace {

// Matteson-James divergence (alpha = 1) of X = v[0, t) and Y = v[t, n), from the three distance sums.
double Divergence(double between, double within_x, double within_y, int nx, int ny) {
  const double px = nx > 1 ? within_x / (0.5 * nx * (nx - 1)) : 0;
  const double py = ny > 1 ? within_y / (0.5 * ny * (ny - 1)) : 0;
  const double e = 2.0 * between / (static_cast<double>(nx) * ny) - px - py;
  return static_cast<double>(nx) * ny / (nx + ny) * e;
}

// Counts and sums of the values inserted so far, by value rank: |z - S| summed over a set S in O(log n).
class DistanceSums {
 public:
  explicit DistanceSums(size_t m) : count_(m + 1), sum_(m + 1) {}
  void Add(size_t k, double z, int sign) {
    total_count_ += sign;
    total_sum_ += sign * z;
    for (size_t i = k + 1; i < count_.size(); i += i & (~i + 1)) {
      count_[i] += sign;
      sum_[i] += sign * z;
    }
  }
  // The sum of |z - s| over the set, z being the k-th smallest distinct value.
  double To(size_t k, double z) const {
    double below_count = 0, below_sum = 0, upto_count = 0, upto_sum = 0;
    Prefix(k, &below_count, &below_sum);    // values < z
    Prefix(k + 1, &upto_count, &upto_sum);  // values <= z
    const double above_count = total_count_ - upto_count, above_sum = total_sum_ - upto_sum;
    return (z * below_count - below_sum) + (above_sum - z * above_count);
  }

 private:
  void Prefix(size_t k, double* count, double* sum) const {  // the first k distinct values
    for (size_t i = k; i > 0; i -= i & (~i + 1)) {
      *count += count_[i];
      *sum += sum_[i];
    }
  }
  std::vector<double> count_, sum_;
  double total_count_ = 0, total_sum_ = 0;
};

// The statistic of every candidate split, moving one value at a time from Y to X; each value's distances to X and
// to Y come from DistanceSums, so all splits cost O(n log n) (a pair loop, O(n^2), made `history check` of a few
// hundred runs take minutes: every permutation scans again). Only the positions in `cuts` (run boundaries,
// ascending) are candidates; the result has one statistic per cut.
std::vector<double> ScanAll(const std::vector<double>& v, const std::vector<int>& cuts) {
  const int n = static_cast<int>(v.size());
  std::vector<double> stats;
  if (n < 2 || cuts.empty()) return stats;
  std::vector<double> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  double within_y = 0;  // every pair's distance: the k-th smallest of n is above k values and below n - 1 - k
  for (int k = 0; k < n; ++k) within_y += sorted[k] * (2.0 * k - (n - 1));
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::vector<size_t> rank(n);
  for (int i = 0; i < n; ++i) rank[i] = std::lower_bound(sorted.begin(), sorted.end(), v[i]) - sorted.begin();
  DistanceSums x(sorted.size()), y(sorted.size());
  for (int i = 0; i < n; ++i) y.Add(rank[i], v[i], +1);
  double within_x = 0, between = 0;
  size_t next_cut = 0;
  for (int t = 1; t < n && next_cut < cuts.size(); ++t) {
    const double z = v[t - 1];  // moves from Y into X
    const size_t k = rank[t - 1];
    y.Add(k, z, -1);
    const double to_x = x.To(k, z), to_y = y.To(k, z);
    x.Add(k, z, +1);
    within_x += to_x;
    within_y -= to_y;
    between += to_y - to_x;
    if (t != cuts[next_cut]) continue;
    ++next_cut;
    stats.push_back(Divergence(between, within_x, within_y, t, n - t));
  }
  return stats;
}

// The best split's statistic and, in *best_index, its position (-1 when there is no candidate).
double ScanSplits(const std::vector<double>& v, const std::vector<int>& cuts, int* best_index) {
  const std::vector<double> stats = ScanAll(v, cuts);
  double best = -1;
  *best_index = -1;
  for (size_t i = 0; i < stats.size(); ++i) {
    if (stats[i] > best) {
      best = stats[i];
      *best_index = cuts[i];
    }
  }
  return best;
}

// Runs [begin, end) flattened, and the flattened positions where a split leaves min_segment runs each side.
struct Segment {
  std::vector<double> values;
  std::vector<int> cuts, cut_runs;  // position in `values`, and the run it starts
};

Segment Flatten(const std::vector<std::vector<double>>& runs, int begin, int end, int min_segment) {
  Segment s;
  for (int r = begin; r < end; ++r) {
    if (r - begin >= min_segment && end - r >= min_segment && !s.values.empty()) {
      s.cuts.push_back(static_cast<int>(s.values.size()));
      s.cut_runs.push_back(r);
    }
    s.values.insert(s.values.end(), runs[r].begin(), runs[r].end());
  }
  return s;
}

struct Permutations {
  double p = 1;
  double critical = 0;  // a statistic above this has p <= alpha (only when p <= alpha: all permutations ran)
};

// The permutation p-value of `observed` for the runs `runs` (their values already ranks). What is shuffled is the
// order of the runs, each keeping its repeats: runs are the exchangeable units (repeats of one run share its
// launch batch and neighbours, so shuffling single repeats would understate the noise). Stops as soon as p can
// no longer reach alpha.
Permutations PermutationP(std::vector<std::vector<double>> runs, double observed, const ChangePointOptions& o,
                          uint64_t seed) {
  std::mt19937_64 rng(seed);
  int at_least = 0;
  const double tolerance = 1e-9 * std::max(1.0, observed);
  const int n = static_cast<int>(runs.size());
  std::vector<double> stats;
  for (int done = 0; done < o.permutations; ++done) {
    std::shuffle(runs.begin(), runs.end(), rng);
    const Segment shuffled = Flatten(runs, 0, n, o.min_segment);
    int ignored = 0;
    stats.push_back(ScanSplits(shuffled.values, shuffled.cuts, &ignored));
    if (stats.back() >= observed - tolerance) ++at_least;
    if ((1.0 + at_least) / (1.0 + o.permutations) > o.alpha) {
      return {(1.0 + at_least) / (2.0 + done), 0};  // an estimate: past alpha, the rest would not change the verdict
    }
  }
  std::sort(stats.rbegin(), stats.rend());
  const int allowed = std::max(0, static_cast<int>(o.alpha * (1.0 + o.permutations) + 1e-9) - 1);
  return {(1.0 + at_least) / (1.0 + o.permutations), stats[std::min<size_t>(allowed, stats.size() - 1)]};
}

// One spike is not a change point: the split at `split` (a run index in [begin, end)) must stay above `critical`
// with any single run of the segment left out (its values re-ranked without it).
bool SurvivesLeavingOneOut(const std::vector<std::vector<double>>& runs, int begin, int end, int split,
                           double critical) {
  for (int drop = begin; drop < end; ++drop) {
    std::vector<double> values;
    int cut = 0;
    for (int r = begin; r < end; ++r) {
      if (r == split) cut = static_cast<int>(values.size());
      if (r != drop) values.insert(values.end(), runs[r].begin(), runs[r].end());
    }
    int ignored = 0;
    if (ScanSplits(Ranks(values), {cut}, &ignored) <= critical) return false;
  }
  return true;
}

// The values the location statistic sees: ranks, or the values clipped to the segment's 5th-95th percentiles
// (their distances keep how far apart two levels are, and one spike weighs no more than a value at the edge).
std::vector<double> LocationScale(const std::vector<double>& values, Locate locate) {
  if (locate == Locate::kRanks) return Ranks(values);
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  const auto at = [&](double q) { return sorted[static_cast<size_t>(q * (sorted.size() - 1) + 0.5)]; };
  const double lo = at(0.05), hi = at(0.95);
  std::vector<double> clipped;
  for (double v : values) clipped.push_back(std::clamp(v, lo, hi));
  return clipped;
}

}  // namespace

Location LocateChange(const std::vector<std::vector<double>>& runs, int begin, int end, const ChangePointOptions& o,
                      uint64_t seed) {
  const Segment seg = Flatten(runs, begin, end, o.min_segment);
  const std::vector<double> observed = ScanAll(LocationScale(seg.values, o.locate), seg.cuts);
  if (observed.empty()) return {begin, begin, begin};  // no split leaves min_segment runs each side
  const size_t best = std::max_element(observed.begin(), observed.end()) - observed.begin();
  Location where{seg.cut_runs[best], seg.cut_runs[best], seg.cut_runs[best]};
  if (o.location_resamples <= 0) return where;
  // How far a wrong split's statistic can rise above the true one's by noise alone: series with the step at
  // where.index by construction (each side's runs resampled whole from its own), max over splits less the true one.
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> before(begin, where.index - 1), after(where.index, end - 1);
  std::vector<std::vector<double>> synthetic(end - begin);
  std::vector<double> excess;
  for (int b = 0; b < o.location_resamples; ++b) {
    for (int r = begin; r < end; ++r) synthetic[r - begin] = runs[r < where.index ? before(rng) : after(rng)];
    const Segment syn = Flatten(synthetic, 0, end - begin, o.min_segment);
    const std::vector<double> stats = ScanAll(LocationScale(syn.values, o.locate), syn.cuts);
    excess.push_back(*std::max_element(stats.begin(), stats.end()) - stats[best]);
  }
  std::sort(excess.begin(), excess.end());
  const double allowed = excess[static_cast<size_t>(o.location_confidence * (excess.size() - 1) + 0.5)];
  // Every split the data cannot tell from the best one by more than that may be where the level changed.
  for (size_t i = 0; i < observed.size(); ++i) {
    if (observed[best] - observed[i] > allowed) continue;
    where.first_lo = std::min(where.first_lo, seg.cut_runs[i]);
    where.first_hi = std::max(where.first_hi, seg.cut_runs[i]);
  }
  return where;
}

std::vector<double> Ranks(const std::vector<double>& v) {
  std::vector<int> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    const double average = 0.5 * (i + j) + 1;
    for (size_t k = i; k <= j; ++k) r[order[k]] = average;
    i = j + 1;
  }
  return r;
}

double Divergence(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<double> v = x;
  v.insert(v.end(), y.begin(), y.end());
  int ignored = 0;
  if (x.empty() || y.empty()) return 0;
  return ScanSplits(v, {static_cast<int>(x.size())}, &ignored);
}

const char* Name(SplitTest t) { return t == SplitTest::kStudentT ? "student t" : "permutation"; }

double SmallestPermutationP(int runs, int after, int permutations) {
  double orders = 1;  // C(runs, after), in floating point: it only has to be compared with 2 / alpha
  for (int i = 1; i <= after; ++i) orders = orders * (runs - after + i) / i;
  return std::max(2.0 / orders, 1.0 / (1.0 + permutations));
}

bool PermutationsCanDecide(int runs, int after, const ChangePointOptions& o) {
  // The leave-one-out check then drops a run of the shorter side and compares what is left with the full
  // segment's critical value: that needs room. Measured (detection_table, this host's noise): with 2/C(n - 1,
  // k - 1) just under alpha / 2, 50 % steps passed in 3 of 100 series of 16 runs with 4 after, 2 of 100 of 30 runs
  // with 3 after; Student's t found them in half.
  const int shorter = std::min(after, runs - after);
  return SmallestPermutationP(runs, shorter, o.permutations) <= o.alpha / 2 &&
         SmallestPermutationP(runs - 1, shorter - 1, o.permutations) <= o.alpha / 10;
}

namespace {

double Log(double v) { return std::log(std::max(v, 1e-300)); }

double MedianOf(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

double StudentSplitP(const std::vector<double>& before, const std::vector<double>& after, int splits) {
  const auto moments = [](const std::vector<double>& v, double* mean, double* ss) {
    *mean = 0;
    for (double x : v) *mean += Log(x) / v.size();
    *ss = 0;
    for (double x : v) *ss += (Log(x) - *mean) * (Log(x) - *mean);
  };
  if (before.size() < 2 || after.size() < 2) return 1;
  double m1 = 0, ss1 = 0, m2 = 0, ss2 = 0;
  moments(before, &m1, &ss1);
  moments(after, &m2, &ss2);
  const double n1 = before.size(), n2 = after.size(), df = n1 + n2 - 2;
  const double se = std::sqrt((ss1 + ss2) / df * (1 / n1 + 1 / n2));
  const double diff = std::fabs(m2 - m1);
  if (se <= 1e-12 * std::max(1.0, diff)) return diff > 1e-12 ? 0 : 1;  // no spread: any gap is certain
  return std::min(1.0, gate::StudentTwoSidedP(diff / se, df) * std::max(1, splits));
}

namespace {

// Student's t quantile, two-sided, for the resolution's arithmetic only (the tests' p-values are gate's): the
// resolution's searches ask for hundreds of (p, df) pairs, and gate's 4000-panel integral under a 100-step
// bisection cost 20 ms each (a check of one 8-run series took 17 s). 256 Simpson panels and 60 bisections agree
// with it to about 1e-6.
double FastTQuantile(double p, double df) {
  const auto density = [df](double x) { return std::pow(1 + x * x / df, -(df + 1) / 2); };
  const double norm = std::exp(std::lgamma((df + 1) / 2) - std::lgamma(df / 2)) / std::sqrt(df * M_PI);
  const auto two_sided_p = [&](double t) {
    const int panels = 256;
    const double h = t / panels;
    double sum = density(0) + density(t);
    for (int i = 1; i < panels; ++i) sum += (i % 2 ? 4 : 2) * density(i * h);
    return 1 - 2 * norm * sum * h / 3;
  };
  double lo = 0, hi = 1;
  while (two_sided_p(hi) > p && hi < 1e6) hi *= 2;
  for (int i = 0; i < 60; ++i) {
    const double mid = (lo + hi) / 2;
    (two_sided_p(mid) > p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

}  // namespace

double DetectableStep(int before, int after, double spread, const ChangePointOptions& o, double power) {
  if (before < 2 || after < 2) return std::numeric_limits<double>::infinity();
  const int runs = before + after, df = runs - 2;
  int splits = std::max(1, runs - 2 * o.min_segment + 1);
  if (!o.student_t_when_short || PermutationsCanDecide(runs, after, o)) splits = std::min(splits, kSearchSplits);
  const double t =
      FastTQuantile(std::min(o.alpha / splits, 0.999), df) + (power > 0.5 ? FastTQuantile(2 * (1 - power), df) : 0);
  return std::exp(t * spread * std::sqrt(1.0 / before + 1.0 / after)) - 1;
}

double RunToRunSpread(const std::vector<double>& run_medians) {
  if (run_medians.size() < 2) return 0;
  std::vector<double> steps;
  for (size_t i = 1; i < run_medians.size(); ++i)
    steps.push_back(std::fabs(Log(run_medians[i]) - Log(run_medians[i - 1])));
  return 1.4826 * MedianOf(steps) / std::sqrt(2.0);
}

Split TestBestSplit(const std::vector<std::vector<double>>& runs, int begin, int end,
                    const ChangePointOptions& options) {
  Split out;
  const Segment seg = Flatten(runs, begin, end, options.min_segment);
  if (seg.cuts.empty()) return out;
  const std::vector<double> ranks = Ranks(seg.values);
  int at = -1;
  const double q = ScanSplits(ranks, seg.cuts, &at);
  if (at < 0) return out;
  out.statistic = q;
  out.index = seg.cut_runs[std::find(seg.cuts.begin(), seg.cuts.end(), at) - seg.cuts.begin()];
  if (options.student_t_when_short && !PermutationsCanDecide(end - begin, end - out.index, options)) {
    // So few runs that no order of them is rare enough: Student's t on the run medians (runs are the units, as
    // in the shuffles), Bonferroni over the splits the best one was chosen from.
    std::vector<double> before, after;
    for (int r = begin; r < end; ++r) (r < out.index ? before : after).push_back(MedianOf(runs[r]));
    out.test = SplitTest::kStudentT;
    out.p = StudentSplitP(before, after, static_cast<int>(seg.cuts.size()));
    out.significant = out.p <= options.alpha;
    return out;
  }
  std::vector<std::vector<double>> ranked_runs;  // the ranks, run by run
  for (int r = begin, pos = 0; r < end; pos += static_cast<int>(runs[r].size()), ++r) {
    ranked_runs.emplace_back(ranks.begin() + pos, ranks.begin() + pos + runs[r].size());
  }
  const uint64_t seed = options.seed + static_cast<uint64_t>(begin) * 7919 + static_cast<uint64_t>(end);
  const Permutations perm = PermutationP(ranked_runs, q, options, seed);
  out.p = perm.p;
  out.significant = perm.p <= options.alpha && SurvivesLeavingOneOut(runs, begin, end, out.index, perm.critical);
  return out;
}

std::vector<ChangePoint> FindChangePoints(const std::vector<std::vector<double>>& runs,
                                          const ChangePointOptions& options) {
  std::vector<ChangePoint> found;
  std::vector<std::pair<int, int>> segments = {{0, static_cast<int>(runs.size())}};  // runs [begin, end)
  while (!segments.empty()) {
    const auto [begin, end] = segments.back();
    segments.pop_back();
    const Split split = TestBestSplit(runs, begin, end, options);
    if (!split.significant) continue;
    const uint64_t seed = options.seed + static_cast<uint64_t>(begin) * 7919 + static_cast<uint64_t>(end);
    const Location where = LocateChange(runs, begin, end, options, seed + 1);
    found.push_back({where.index, split.p, split.statistic, where.first_lo, where.first_hi, split.test});
    segments.push_back({begin, where.index});
    segments.push_back({where.index, end});
  }
  std::sort(found.begin(), found.end(), [](const ChangePoint& a, const ChangePoint& b) { return a.index < b.index; });
  return found;
}

std::vector<ChangePoint> FindChangePoints(const std::vector<double>& series, const ChangePointOptions& options) {
  std::vector<std::vector<double>> runs;
  for (double v : series) runs.push_back({v});
  return FindChangePoints(runs, options);
}

}  // namespace commbench::history
