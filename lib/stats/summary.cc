#include "lib/stats/summary.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace commbench {
namespace {

// SplitMix64: small, fast and good enough for resampling indices.
struct SplitMix64 {
  uint64_t state;
  uint64_t Next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
};

double MedianInPlace(std::vector<double>* v) {
  size_t n = v->size();
  auto mid = v->begin() + static_cast<long>(n / 2);
  std::nth_element(v->begin(), mid, v->end());
  double upper = *mid;
  if (n % 2 == 1) return upper;
  double lower = *std::max_element(v->begin(), mid);
  return (lower + upper) / 2;
}

}  // namespace

double Median(std::vector<double> values) {
  if (values.empty()) return std::nan("");
  return MedianInPlace(&values);
}

double MedianOr(std::vector<double> values, double if_empty) {
  return values.empty() ? if_empty : MedianInPlace(&values);
}

double PercentileSorted(const std::vector<double>& sorted, double q) {
  if (sorted.size() == 1) return sorted[0];
  double pos = q / 100.0 * static_cast<double>(sorted.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, sorted.size() - 1);
  double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

void BootstrapMedianCI(const std::vector<double>& samples, int resamples, uint64_t seed, double* lo, double* hi) {
  const size_t n = samples.size();
  if (n < 2) {
    *lo = *hi = n ? samples[0] : 0;
    return;
  }
  // An m-out-of-n bootstrap with m = min(n, 2000): a resample's median spreads like 1/sqrt(m), not 1/sqrt(n),
  // so for n > m the percentile interval is rescaled around the sample median by sqrt(m/n) (the m-out-of-n
  // bootstrap's rule: sqrt(m)(median*_m - median_n) stands for sqrt(n)(median_n - median)). Rescaling rather
  // than resampling all n points keeps the cost nearly flat in n (one more O(n) median): Summarize runs for every
  // rank of every point, and for each adaptive batch, with up to 100000 samples, where full resamples cost about
  // 60 times more (measured at n = 100000: 8 ms against 450 ms; both give the same interval to 1e-4).
  const size_t m = std::min<size_t>(n, 2000);
  SplitMix64 rng{seed};
  std::vector<double> medians(static_cast<size_t>(resamples));
  std::vector<double> draw(m);
  for (auto& median : medians) {
    for (auto& d : draw) d = samples[rng.Next() % n];
    median = MedianInPlace(&draw);
  }
  std::sort(medians.begin(), medians.end());
  *lo = PercentileSorted(medians, 2.5);
  *hi = PercentileSorted(medians, 97.5);
  if (m < n) {
    std::vector<double> all(samples);
    const double center = MedianInPlace(&all);
    const double scale = std::sqrt(static_cast<double>(m) / static_cast<double>(n));
    *lo = center + (*lo - center) * scale;
    *hi = center + (*hi - center) * scale;
  }
}

namespace {

// c = j - 1 of MedianCISorted: the largest count with P(B <= c) <= 0.025; -1 when even P(B = 0) is larger (n < 6).
long LowerTailCount(size_t n) {
  constexpr double kTail = 0.025;
  if (n > 1000) {  // normal approximation with continuity correction; within one rank of the exact count here
    const double half = static_cast<double>(n) / 2;
    return static_cast<long>(std::floor(half - 0.5 - 0.9799819922 * std::sqrt(static_cast<double>(n))));
  }
  double pmf = std::pow(0.5, static_cast<double>(n));  // P(B = 0); >= 1e-301 for n <= 1000
  double cdf = pmf;
  long c = -1;
  for (size_t i = 0; cdf <= kTail && i < n; ++i) {
    c = static_cast<long>(i);
    pmf *= static_cast<double>(n - i) / static_cast<double>(i + 1);
    cdf += pmf;
  }
  return c;
}

}  // namespace

void MedianCISorted(const std::vector<double>& sorted, double* lo, double* hi) {
  const size_t n = sorted.size();
  if (n == 0) {
    *lo = *hi = 0;
    return;
  }
  const size_t c = static_cast<size_t>(std::max<long>(LowerTailCount(n), 0));
  *lo = sorted[c];
  *hi = sorted[n - 1 - c];
}

Summary Summarize(const std::vector<double>& samples) {
  Summary s;
  s.n = samples.size();
  if (samples.empty()) return s;
  std::vector<double> sorted(samples);
  std::sort(sorted.begin(), sorted.end());
  s.min = sorted.front();
  s.max = sorted.back();
  s.p50 = PercentileSorted(sorted, 50);
  s.p95 = PercentileSorted(sorted, 95);
  s.p99 = PercentileSorted(sorted, 99);
  s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(s.n);
  if (s.n > 1) {
    double ss = 0;
    for (double v : sorted) ss += (v - s.mean) * (v - s.mean);
    s.stddev = std::sqrt(ss / static_cast<double>(s.n - 1));
  }
  s.cv = s.mean > 0 ? s.stddev / s.mean : 0;
  // Order statistics rather than the bootstrap: the same coverage (stats_test), without 200 resamples of up to
  // 2000 points for every rank, group and batch decision (about 150 ms of the driver's CPU per point of
  // scenario A at 8 groups, on the 2 cores the ranks measure on).
  MedianCISorted(sorted, &s.ci95_lo, &s.ci95_hi);
  return s;
}

double StandardErrorOfMean(const Summary& s) { return s.n > 1 ? s.stddev / std::sqrt(static_cast<double>(s.n)) : 0; }

std::vector<double> ElementwiseMax(const std::vector<std::vector<double>>& series) {
  if (series.empty()) return {};
  size_t n = series[0].size();
  for (const auto& s : series) n = std::min(n, s.size());
  std::vector<double> out(n, -INFINITY);
  for (const auto& s : series) {
    for (size_t i = 0; i < n; ++i) out[i] = std::max(out[i], s[i]);
  }
  return out;
}

std::vector<double> ElementwiseMean(const std::vector<std::vector<double>>& series) {
  if (series.empty()) return {};
  size_t n = series[0].size();
  for (const auto& s : series) n = std::min(n, s.size());
  std::vector<double> out(n, 0.0);
  for (const auto& s : series) {
    for (size_t i = 0; i < n; ++i) out[i] += s[i];
  }
  for (auto& v : out) v /= static_cast<double>(series.size());
  return out;
}

}  // namespace commbench
