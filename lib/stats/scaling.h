// Scaling analysis of one series (every axis fixed except the group count): a least-squares line and a choice
// among four growth models by an information criterion, with the noise taken from the per-iteration samples so
// that noise does not read as growth. Also, across sizes, whether the per-group slope scales with bytes.
// Pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/stats/fit.h"

namespace commbench {

enum class GrowthModel {
  kFlat,        // y = c
  kLinear,      // y = a + b*G
  kStep,        // y = lo for G < change_point, hi for G >= change_point
  kSaturation,  // y = a + b*min(G, knee): rises, then levels off
};

const char* GrowthModelName(GrowthModel m);

struct ScalingOptions {
  // Within-point samples do not see drift between points (clock, cache, other load), so each point's noise is
  // at least this fraction of its value.
  double relative_noise_floor = 0.02;
  // Growth smaller than this fraction of the first point's fitted value is not growth, however significant.
  double min_growth_fraction = 0.10;
  // Growth must exceed this many standard errors of the end points' difference.
  double min_growth_sigmas = 3.0;
  // And this much in absolute terms (us per operation over the series): below it no user's loop would notice,
  // however significant (0.6 -> 0.7 us is 16 % and many sigmas on a quiet host, and worth nobody's time).
  double min_growth_us = 1.0;
};

struct ScalingFit {
  LinearFit line;  // least squares over (G, y), unweighted: slope is "us per added group"
  GrowthModel model = GrowthModel::kFlat;
  double change_point = 0;       // step: first G at the upper level; saturation: G where it levels off
  double level_before = 0;       // step: lower level; saturation: value at the first G
  double level_after = 0;        // step: upper level; saturation: plateau
  double noise = 0;              // typical standard error of one point, after the floor and scale factor
  double growth = 0;             // fitted value at the last G minus at the first G
  double growth_fraction = 0;    // growth / fitted value at the first G
  bool grows = false;            // growth is positive, significant and large enough
  double bic[4] = {0, 0, 0, 0};  // per model (index = GrowthModel), lower is better
  int n = 0;
};

// `groups` ascending and distinct; `y` the per-point central value (e.g. p50); `se` the standard error of each
// y (e.g. bootstrap CI width / 3.92), 0 where unknown. Fewer than 3 points: line only, model flat.
ScalingFit FitScaling(const std::vector<double>& groups, const std::vector<double>& y, const std::vector<double>& se,
                      const ScalingOptions& options = {});

// Standard error of a median from its 95% confidence interval.
inline double StandardErrorFromCI95(double lo, double hi) { return hi > lo ? (hi - lo) / 3.92 : 0; }

// Per size: how much of the per-group slope is explained by bytes. Fits slope = overhead + per_byte*bytes across
// sizes; at a size the slope is bandwidth-bound when the bytes term is more than half of it.
struct SizeSlope {
  int64_t bytes = 0;
  double slope_us_per_group = 0;
};

struct SlopeBytesFit {
  double overhead_us_per_group = 0;  // intercept of the slope-vs-bytes line
  double us_per_byte_per_group = 0;  // its slope
  double implied_gbps = 0;           // 1 / us_per_byte (decimal GB/s): the bandwidth each added group costs
  struct PerSize {
    int64_t bytes = 0;
    double slope_us_per_group = 0;
    double bytes_share = 0;  // fraction of the slope from the bytes term, in [0, 1]
    bool bandwidth_bound = false;
  };
  std::vector<PerSize> sizes;
  bool any_bandwidth_bound = false;
};

SlopeBytesFit ClassifySlopeBySize(std::vector<SizeSlope> sizes);

}  // namespace commbench
