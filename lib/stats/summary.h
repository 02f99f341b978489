// Summaries of per-iteration samples (docs/design.md §5): min, percentiles, mean, stddev, CV and a 95% CI of the
// median (distribution-free, from order statistics). Pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace commbench {

struct Summary {
  size_t n = 0;
  double min = 0, p50 = 0, p95 = 0, p99 = 0, max = 0;
  double mean = 0, stddev = 0, cv = 0;  // stddev is the sample standard deviation (n-1)
  double ci95_lo = 0, ci95_hi = 0;      // 95% CI of the median (MedianCISorted)
};

// The median (the mean of the middle two for an even count); NaN when `values` is empty.
double Median(std::vector<double> values);
// The same, with `if_empty` for no values (callers that read "no values" as a figure of 0).
double MedianOr(std::vector<double> values, double if_empty);

// Linear interpolation between closest ranks (numpy's default); `sorted` must be ascending and non-empty.
double PercentileSorted(const std::vector<double>& sorted, double q);

// Percentile bootstrap of the median with a fixed seed, so that the same samples give the same interval. Resamples
// m = min(n, 2000) points; for n > m the interval is rescaled around the sample median by sqrt(m/n).
void BootstrapMedianCI(const std::vector<double>& samples, int resamples, uint64_t seed, double* lo, double* hi);

// The distribution-free 95% interval of the median: order statistics [x_(j), x_(n+1-j)], with j the largest for
// which P(B <= j-1) <= 0.025, B ~ Binomial(n, 1/2) (exact up to n = 1000, the normal approximation above). It
// covers the median at least 95% of the time for any continuous distribution, needs no resampling (the sort
// Summarize does anyway), and gives the same interval for the same samples. `sorted` must be ascending.
void MedianCISorted(const std::vector<double>& sorted, double* lo, double* hi);

Summary Summarize(const std::vector<double>& samples);

// Standard error of the mean, stddev / sqrt(n): the uncertainty of what a loop of n such iterations costs per
// iteration (0 for fewer than two samples).
double StandardErrorOfMean(const Summary& s);

// Element-wise reductions across ranks of equally long sample series (per-iteration max / mean).
std::vector<double> ElementwiseMax(const std::vector<std::vector<double>>& series);
std::vector<double> ElementwiseMean(const std::vector<std::vector<double>>& series);

}  // namespace commbench
