#include "lib/gate/one_more_run.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <string>
#include <utility>

#include "lib/stats/summary.h"

namespace commbench::gate {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Student's t density with `df` degrees of freedom.
double StudentDensity(double x, double df) {
  const double log_norm = std::lgamma((df + 1) / 2) - std::lgamma(df / 2) - 0.5 * std::log(df * M_PI);
  return std::exp(log_norm - (df + 1) / 2 * std::log1p(x * x / df));
}

}  // namespace

double StudentTwoSidedP(double t, double df) {
  t = std::fabs(t);
  if (!(df > 0) || std::isnan(t)) return kNaN;
  if (std::isinf(t)) return 0;
  // Simpson's rule over [0, |t|]: the density is smooth and falls off slowly enough for 4000 panels to give the
  // central mass to about 1e-10 for the |t| a gate meets (below 1e3).
  const int panels = 4000;
  const double h = t / panels;
  double sum = StudentDensity(0, df) + StudentDensity(t, df);
  for (int i = 1; i < panels; ++i) sum += (i % 2 ? 4 : 2) * StudentDensity(i * h, df);
  const double central = 2 * sum * h / 3;
  return std::clamp(1 - central, 0.0, 1.0);
}

double StudentQuantileTwoSided(double p, double df) {
  // Kept per thread: a gate asks for the same few (alpha, power, 95 %) at the same run counts for every point.
  thread_local std::map<std::pair<double, double>, double> cache;
  if (auto it = cache.find({p, df}); it != cache.end()) return it->second;
  double lo = 0, hi = 1;
  while (StudentTwoSidedP(hi, df) > p && hi < 1e6) hi *= 2;
  for (int i = 0; i < 100 && hi - lo > 1e-9 * hi; ++i) {
    const double mid = (lo + hi) / 2;
    (StudentTwoSidedP(mid, df) > p ? lo : hi) = mid;
  }
  return cache[{p, df}] = (lo + hi) / 2;
}

namespace {

// The runs' mean and spread on a log scale, and a new run's spread about that mean.
struct RunSpread {
  double mean = 0, sd = 0, se = 0, df = 0;
};

RunSpread SpreadOf(const std::vector<double>& runs) {
  const size_t k = runs.size();
  RunSpread r;
  for (double v : runs) r.mean += std::log(v);
  r.mean /= static_cast<double>(k);
  double ss = 0;
  for (double v : runs) ss += (std::log(v) - r.mean) * (std::log(v) - r.mean);
  r.df = static_cast<double>(k - 1);
  r.sd = std::sqrt(ss / r.df);
  r.se = r.sd * std::sqrt(1 + 1.0 / static_cast<double>(k));
  return r;
}

double Detectable(const RunSpread& r, const DecisionOptions& options) {
  return std::exp(
             (StudentQuantileTwoSided(options.alpha, r.df) + StudentQuantileTwoSided(2 * (1 - options.power), r.df)) *
             r.se) -
         1;
}

}  // namespace

double LogSpread(const std::vector<double>& runs) { return SpreadOf(runs).sd; }

double DetectableAgainstRuns(const std::vector<double>& runs, const DecisionOptions& options) {
  if (runs.size() < 3) return std::numeric_limits<double>::infinity();
  return Detectable(SpreadOf(runs), options);
}

Decision DecideAgainstRuns(const std::vector<double>& runs, const std::vector<double>& now,
                           const DecisionOptions& options, const std::string& runs_are) {
  Decision d;
  const size_t k = runs.size();
  if (k < 3 || now.empty()) {
    d.reason =
        now.empty() ? "no repeats on the new side" : std::to_string(k) + " runs: a run-to-run spread needs at least 3";
    d.detectable = std::numeric_limits<double>::infinity();
    return d;
  }
  const RunSpread spread = SpreadOf(runs);
  const double se = spread.se, df = spread.df;
  const double shift = std::log(Median(now)) - spread.mean;
  d.ratio = std::exp(shift);
  const double q95 = StudentQuantileTwoSided(0.05, df);
  d.ratio_lo = std::exp(shift - q95 * se);
  d.ratio_hi = std::exp(shift + q95 * se);
  d.test.p = se > 0 ? StudentTwoSidedP(shift / se, df) : (shift == 0 ? 1 : 0);
  d.detectable = Detectable(spread, options);
  char figures[200];
  std::snprintf(figures, sizeof(figures),
                "ratio %.3f to the runs' geometric mean (95%% prediction interval %.3f-%.3f over %zu runs), p = "
                "%.2g, detectable %.1f%%",
                d.ratio, d.ratio_lo, d.ratio_hi, k, d.test.p, 100 * d.detectable);
  // With alpha at most 5 %, a significant test's 95 % interval excludes 1 too; above, it must also, as in Decide.
  JudgeChange(d.test.p < options.alpha, figures, runs_are + " spread too much: " + std::to_string(k) + " of them",
              options.min_effect, &d);
  return d;
}

}  // namespace commbench::gate
