#include "lib/gate/decision.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <random>
#include <utility>

#include "lib/stats/summary.h"

namespace commbench::gate {
namespace {

// Median absolute deviation scaled to a standard deviation for normal data.
double RobustSd(const std::vector<double> &v) {
  const double m = Median(v);
  std::vector<double> dev;
  for (double x : v) dev.push_back(std::fabs(x - m));
  return 1.4826 * Median(dev);
}

double NormalUpperTail(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

// The z with NormalUpperTail(z) = q, by bisection (q in (0, 0.5]).
double NormalQuantileUpper(double q) {
  double lo = 0, hi = 10;
  for (int i = 0; i < 100; ++i) {
    double mid = 0.5 * (lo + hi);
    (NormalUpperTail(mid) > q ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// Number of arrangements of na values of one side among na + nb ranks with each
// U, U = 0..na*nb (no ties).
std::vector<double> BuildExactUDistribution(int na, int nb) {
  // count[i][j][u]: arrangements of i values of A and j of B with U = u, built
  // one smallest value at a time.
  std::vector<std::vector<std::vector<double>>> count(
      na + 1, std::vector<std::vector<double>>(nb + 1, std::vector<double>(na * nb + 1, 0)));
  for (int i = 0; i <= na; ++i) {
    for (int j = 0; j <= nb; ++j) {
      if (i == 0 || j == 0) {
        count[i][j][0] = 1;
        continue;
      }
      for (int u = 0; u <= i * j; ++u) {
        // The largest value is B's (it beats all i A values: U counts B above
        // A) or A's.
        double v = u - i >= 0 ? count[i][j - 1][u - i] : 0;
        v += count[i - 1][j][u];
        count[i][j][u] = v;
      }
    }
  }
  return count[na][nb];
}

// BuildExactUDistribution, kept per thread: a sequential gate (and its simulation test) asks for the same sizes
// at every look.
const std::vector<double> &ExactUDistribution(int na, int nb) {
  thread_local std::map<std::pair<int, int>, std::vector<double>> cache;
  auto it = cache.find({na, nb});
  if (it == cache.end()) it = cache.emplace(std::make_pair(na, nb), BuildExactUDistribution(na, nb)).first;
  return it->second;
}

}  // namespace

std::string PercentChange(double ratio) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%+.1f%%", 100 * (ratio - 1));
  return buf;
}

double SmallestAttainableP(int na, int nb) {
  if (na < 1 || nb < 1) return 1;
  double combinations = 1;  // C(na + nb, na)
  for (int k = 1; k <= na; ++k) combinations = combinations * (nb + k) / k;
  return std::min(1.0, 2.0 / combinations);
}

RankTest MannWhitney(const std::vector<double> &a, const std::vector<double> &b) {
  RankTest t;
  const size_t na = a.size(), nb = b.size();
  if (na == 0 || nb == 0) return t;
  // U of b: pairs where b is above a, ties counting one half (by binary search in sorted a: a sequential gate
  // tests at every look).
  std::vector<double> sorted_a(a);
  std::sort(sorted_a.begin(), sorted_a.end());
  for (double y : b) {
    const auto below = std::lower_bound(sorted_a.begin(), sorted_a.end(), y);
    const auto equal_end = std::upper_bound(below, sorted_a.end(), y);
    t.u += static_cast<double>(below - sorted_a.begin()) + 0.5 * static_cast<double>(equal_end - below);
  }
  std::vector<double> all(sorted_a);
  all.insert(all.end(), b.begin(), b.end());
  std::sort(all.begin(), all.end());
  const bool ties = std::adjacent_find(all.begin(), all.end()) != all.end();
  const double mean = 0.5 * static_cast<double>(na * nb);
  if (!ties && na <= 20 && nb <= 20) {
    const std::vector<double> &dist = ExactUDistribution(static_cast<int>(na), static_cast<int>(nb));
    double total = 0, tail = 0;
    for (double c : dist) total += c;
    const double extreme = std::fabs(t.u - mean);
    for (size_t u = 0; u < dist.size(); ++u) {
      if (std::fabs(static_cast<double>(u) - mean) >= extreme - 1e-9) tail += dist[u];
    }
    t.p = std::min(1.0, tail / total);
    t.exact = true;
    return t;
  }
  // Normal approximation with the tie correction of the variance and a
  // continuity correction.
  const double n = static_cast<double>(na + nb);
  double tie_term = 0;
  for (size_t i = 0; i < all.size();) {
    size_t j = i;
    while (j < all.size() && all[j] == all[i]) ++j;
    const double k = static_cast<double>(j - i);
    tie_term += k * k * k - k;
    i = j;
  }
  const double var = static_cast<double>(na * nb) / 12.0 * ((n + 1) - tie_term / (n * (n - 1)));
  if (var <= 0) return t;  // every value equal: no evidence of a difference
  const double z = std::max(std::fabs(t.u - mean) - 0.5, 0.0) / std::sqrt(var);
  t.p = std::min(1.0, 2 * NormalUpperTail(z));
  return t;
}

void BootstrapRatioCI(const std::vector<double> &a, const std::vector<double> &b, int resamples, uint64_t seed,
                      double *lo, double *hi, SampleStatistic statistic) {
  std::mt19937_64 rng(seed);
  std::vector<double> ratios, ra(a.size()), rb(b.size());
  ratios.reserve(static_cast<size_t>(resamples));
  std::uniform_int_distribution<size_t> pick_a(0, a.size() - 1), pick_b(0, b.size() - 1);
  for (int r = 0; r < resamples; ++r) {
    for (double &x : ra) x = a[pick_a(rng)];
    for (double &y : rb) y = b[pick_b(rng)];
    const double m = statistic(ra);
    if (m > 0) ratios.push_back(statistic(rb) / m);
  }
  std::sort(ratios.begin(), ratios.end());
  if (ratios.empty()) {
    *lo = *hi = std::numeric_limits<double>::quiet_NaN();
    return;
  }
  auto at = [&ratios](double q) { return ratios[static_cast<size_t>(q * static_cast<double>(ratios.size() - 1))]; };
  *lo = at(0.025);
  *hi = at(0.975);
}

void JudgeChange(bool significant, const std::string &figures, const std::string &too_noisy, double min_effect,
                 Decision *d) {
  const double up = 1 + min_effect, down = 1 - min_effect;
  // A change is reported when it is significant, its interval excludes 1 and reaches past the floor (a change
  // of min_effect cannot be ruled out). Requiring the point estimate itself to pass the floor would miss a true
  // change of exactly min_effect half of the time.
  if (significant && d->ratio_lo > 1 && d->ratio_hi > up) {
    d->change = Change::kSlower;
    d->reason = "slower by " + PercentChange(d->ratio) + ": " + figures;
  } else if (significant && d->ratio_hi < 1 && d->ratio_lo < down) {
    d->change = Change::kFaster;
    d->reason = "faster by " + PercentChange(d->ratio) + ": " + figures;
  } else if (d->detectable <= min_effect && d->ratio_lo >= down && d->ratio_hi <= up) {
    d->change = Change::kUnchanged;
    d->reason = (significant ? "a change of " + PercentChange(d->ratio) + ", within the floor of +-"
                             : std::string("within +-")) +
                PercentChange(up).substr(1) + ": " + figures;
  } else if (d->detectable > min_effect) {
    d->reason = too_noisy + " could only detect " + PercentChange(1 + d->detectable).substr(1) + " or more; " + figures;
  } else {
    d->reason = "the interval reaches past the floor without a significant change: " + figures;
  }
}

RatioEvidence PairedEvidence(const std::vector<double> &base, const std::vector<double> &now, double threshold,
                             double power, int resamples, uint64_t seed) {
  RatioEvidence e;
  const size_t n = now.size();
  e.n = static_cast<int>(n);
  if (n < 2 || base.size() != n) return e;
  std::vector<double> logs(n);
  for (size_t i = 0; i < n; ++i) {
    const double a = i + 1 < n ? 0.5 * (std::log(base[i]) + std::log(base[i + 1])) : std::log(base[i]);
    logs[i] = std::log(now[i]) - a;
  }
  const double m = Median(logs);
  e.ratio = std::exp(m);
  const size_t block = std::max<size_t>(1, static_cast<size_t>(std::lround(std::cbrt(static_cast<double>(n)))));
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<size_t> pick(0, n - 1);
  std::vector<double> medians, x;
  medians.reserve(static_cast<size_t>(resamples));
  x.reserve(n);
  for (int r = 0; r < resamples; ++r) {
    x.clear();
    while (x.size() < n) {
      const size_t start = pick(rng);
      for (size_t k = 0; k < block && x.size() < n; ++k) x.push_back(logs[(start + k) % n]);
    }
    medians.push_back(Median(x));
  }
  std::sort(medians.begin(), medians.end());
  auto at = [&medians](double q) { return medians[static_cast<size_t>(q * static_cast<double>(medians.size() - 1))]; };
  e.lo = std::exp(at(0.025));
  e.hi = std::exp(at(0.975));
  double mean = 0, var = 0;
  for (double v : medians) mean += v;
  mean /= static_cast<double>(medians.size());
  for (double v : medians) var += (v - mean) * (v - mean);
  const double sd = std::sqrt(var / static_cast<double>(std::max<size_t>(1, medians.size() - 1)));
  e.p = sd > 0 ? std::min(1.0, 2 * NormalUpperTail(std::fabs(m) / sd)) : (m == 0 ? 1.0 : 0.0);
  e.detectable = (NormalQuantileUpper(threshold / 2) + NormalQuantileUpper(1 - power)) * sd;
  return e;
}

Decision Decide(const std::vector<double> &base, const std::vector<double> &now, const DecisionOptions &options) {
  Decision d;
  d.floor = options.min_effect;
  const int nb = static_cast<int>(base.size()), nn = static_cast<int>(now.size());
  if (nb == 0 || nn == 0) {
    d.reason = "no repeats on the " + std::string(nb == 0 ? "base" : "new") + " side";
    d.detectable = std::numeric_limits<double>::infinity();
    return d;
  }
  const double mb = Median(base), mn = Median(now);
  d.ratio = mb > 0 ? mn / mb : std::numeric_limits<double>::quiet_NaN();
  BootstrapRatioCI(base, now, options.resamples, options.seed, &d.ratio_lo, &d.ratio_hi);
  d.test = MannWhitney(base, now);
  d.unpaired = {std::min(nb, nn), d.ratio, d.ratio_lo, d.ratio_hi, d.test.p, d.detectable};
  const double threshold = options.boundary_p >= 0 ? std::min(options.boundary_p, options.alpha) : options.alpha;
  if (SmallestAttainableP(nb, nn) > threshold) {
    d.detectable = std::numeric_limits<double>::infinity();
    d.unpaired.detectable = d.detectable;
    int needed = 1;
    while (SmallestAttainableP(needed, needed) > threshold) ++needed;
    char alpha[16];
    std::snprintf(alpha, sizeof(alpha), "%.2g", threshold);
    d.reason = std::to_string(nb) + " base and " + std::to_string(nn) + " new repeats: a rank test cannot reach p < " +
               alpha + " with so few (" + std::to_string(needed) + " a side are needed; sweep --repeats)";
    return d;
  }
  // Relative spread of one repeat, pooled over both sides; the change a test at
  // alpha detects with `power`.
  const double spread = std::max(RobustSd(base) / mb, RobustSd(now) / mn);
  const double z = NormalQuantileUpper(threshold / 2) + NormalQuantileUpper(1 - options.power);
  d.detectable = z * spread * std::sqrt(1.0 / nb + 1.0 / nn);
  d.unpaired.detectable = d.detectable;
  char figures[320];
  std::snprintf(figures, sizeof(figures), "ratio %.3f (95%% CI %.3f-%.3f), p = %.2g, detectable %.1f%%", d.ratio,
                d.ratio_lo, d.ratio_hi, d.test.p, 100 * d.detectable);
  std::string shown = figures;
  bool significant = d.test.p < threshold;
  if (options.paired && nb == nn && nb >= 2) {
    d.paired = PairedEvidence(base, now, threshold, options.power, options.resamples, options.seed + 1);
    // Chosen by the intervals' widths alone, never by which says more: the choice does not look at the change.
    d.paired_used = std::log(d.paired.hi / d.paired.lo) < std::log(d.ratio_hi / d.ratio_lo);
    char paired[200];
    std::snprintf(paired, sizeof(paired), "paired %.3f (%.3f-%.3f, %d pairs, p = %.2g)", d.paired.ratio, d.paired.lo,
                  d.paired.hi, d.paired.n, d.paired.p);
    char unpaired[120];
    std::snprintf(unpaired, sizeof(unpaired), "unpaired %.3f (%.3f-%.3f, p = %.2g)", d.ratio, d.ratio_lo, d.ratio_hi,
                  d.test.p);
    if (d.paired_used) {
      d.ratio = d.paired.ratio;
      d.ratio_lo = d.paired.lo;
      d.ratio_hi = d.paired.hi;
      d.detectable = d.paired.detectable;
      significant = d.paired.p < threshold;
      std::snprintf(figures, sizeof(figures), "detectable %.1f%%", 100 * d.detectable);
      shown = std::string(paired) + ", the tighter; " + unpaired + "; " + figures;
    } else {
      shown += "; " + std::string(paired) + ", the wider";
    }
  }
  if (options.auto_floor && d.ratio > 0) {
    // The half-width projected to the job's last repeats: it narrows with the square root of the information.
    const double fb = options.final_base > 0 ? static_cast<double>(options.final_base) : nb;
    const double fn = options.final_now > 0 ? static_cast<double>(options.final_now) : nn;
    const double shrink =
        std::sqrt((1.0 / std::max<double>(fb, nb) + 1.0 / std::max<double>(fn, nn)) / (1.0 / nb + 1.0 / nn));
    // Never below what the test itself detects there either, or "unchanged" would need a change it cannot see.
    d.resolution = std::max(kResolutionHalfWidths * 0.5 * (d.ratio_hi - d.ratio_lo) / d.ratio, d.detectable) * shrink;
    d.floor = std::max(options.min_effect, d.resolution);
    char resolved[96];
    std::snprintf(resolved, sizeof(resolved), "; resolves %.1f%%, floor %.1f%%", 100 * d.resolution, 100 * d.floor);
    shown += resolved;
  }
  JudgeChange(significant, shown, "noise above the floor: these repeats", d.floor, &d);
  return d;
}

}  // namespace commbench::gate
