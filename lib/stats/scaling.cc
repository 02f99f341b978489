#include "lib/stats/scaling.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace commbench {
namespace {

constexpr int kParams[4] = {1, 2, 3, 3};  // flat, linear, step (2 levels + where), saturation (a, b, knee)

struct ModelFit {
  double chi2 = std::numeric_limits<double>::infinity();
  std::vector<double> fitted;
  double change_point = 0, before = 0, after = 0;
};

// Timing noise is multiplicative and heavy-tailed (a loaded host stretches slow points most), so residuals are
// relative: (y - m) / (sigma_rel * m). Each model is fitted by iteratively reweighted least squares with the
// weights that make its weighted residuals those relative ones.
struct Data {
  const std::vector<double>& g;
  const std::vector<double>& y;
  std::vector<double> rel;  // relative standard error per point
  double tiny;              // smallest model value used as a scale, so that m <= 0 cannot divide by zero
};

double Chi2(const Data& d, const std::vector<double>& m) {
  double c = 0;
  for (size_t i = 0; i < d.y.size(); ++i) {
    double scale = d.rel[i] * std::max(m[i], d.tiny);
    c += (d.y[i] - m[i]) * (d.y[i] - m[i]) / (scale * scale);
  }
  return c;
}

double WeightedMean(const std::vector<double>& y, const std::vector<double>& w, size_t from, size_t to) {
  double sw = 0, swy = 0;
  for (size_t i = from; i < to; ++i) {
    sw += w[i];
    swy += w[i] * y[i];
  }
  return sw > 0 ? swy / sw : 0;
}

// Weighted least squares of y on x; false when x does not vary.
bool WeightedLine(const std::vector<double>& x, const std::vector<double>& y, const std::vector<double>& w, double* a,
                  double* b) {
  double sw = 0, sx = 0, sy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sw += w[i];
    sx += w[i] * x[i];
    sy += w[i] * y[i];
  }
  double mx = sx / sw, my = sy / sw, sxx = 0, sxy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sxx += w[i] * (x[i] - mx) * (x[i] - mx);
    sxy += w[i] * (x[i] - mx) * (y[i] - my);
  }
  if (sxx <= 0) return false;
  *b = sxy / sxx;
  *a = my - *b * mx;
  return true;
}

// `fit` maps weights to model values (empty: the model does not apply). Starts from the data as the scale.
ModelFit Irls(const Data& d, const std::function<std::vector<double>(const std::vector<double>&)>& fit) {
  ModelFit out;
  std::vector<double> m = d.y, w(d.y.size());
  for (int iter = 0; iter < 8; ++iter) {
    for (size_t i = 0; i < d.y.size(); ++i) {
      double scale = d.rel[i] * std::max(m[i], d.tiny);
      w[i] = 1 / (scale * scale);
    }
    std::vector<double> next = fit(w);
    if (next.empty()) return out;
    m = next;
  }
  out.fitted = m;
  out.before = m.front();
  out.after = m.back();
  out.chi2 = Chi2(d, m);
  return out;
}

ModelFit FitFlat(const Data& d) {
  return Irls(d, [&d](const std::vector<double>& w) {
    return std::vector<double>(d.y.size(), WeightedMean(d.y, w, 0, d.y.size()));
  });
}

ModelFit FitLinearModel(const Data& d) {
  return Irls(d, [&d](const std::vector<double>& w) {
    double a = 0, b = 0;
    std::vector<double> m;
    if (!WeightedLine(d.g, d.y, w, &a, &b)) return m;
    for (double x : d.g) m.push_back(a + b * x);
    return m;
  });
}

// Best single change point: the upper level starts at g[j].
ModelFit FitStep(const Data& d) {
  ModelFit best;
  size_t n = d.y.size();
  for (size_t j = 1; j < n; ++j) {
    ModelFit m = Irls(d, [&d, j, n](const std::vector<double>& w) {
      std::vector<double> v(n, WeightedMean(d.y, w, 0, j));
      std::fill(v.begin() + static_cast<long>(j), v.end(), WeightedMean(d.y, w, j, n));
      return v;
    });
    m.change_point = d.g[j];
    if (m.chi2 < best.chi2) best = m;
  }
  return best;
}

// Hockey stick a + b*min(G, knee) with b > 0. The knee needs three points on the rise (with two it is a step)
// and one on the plateau (with none it is a line).
ModelFit FitSaturation(const Data& d) {
  ModelFit best;
  size_t n = d.y.size();
  for (size_t j = 2; j + 1 < n; ++j) {
    std::vector<double> x(n);
    for (size_t i = 0; i < n; ++i) x[i] = std::min(d.g[i], d.g[j]);
    ModelFit m = Irls(d, [&d, &x](const std::vector<double>& w) {
      double a = 0, b = 0;
      std::vector<double> v;
      if (!WeightedLine(x, d.y, w, &a, &b) || b <= 0) return v;
      for (double xi : x) v.push_back(a + b * xi);
      return v;
    });
    m.change_point = d.g[j];
    if (m.chi2 < best.chi2) best = m;
  }
  return best;
}

}  // namespace

const char* GrowthModelName(GrowthModel m) {
  switch (m) {
    case GrowthModel::kFlat:
      return "flat";
    case GrowthModel::kLinear:
      return "linear";
    case GrowthModel::kStep:
      return "step";
    case GrowthModel::kSaturation:
      return "saturation";
  }
  return "flat";
}

// Over 80 lines: the fit, its tests and its verdict read as one derivation (each step uses the previous ones).
ScalingFit FitScaling(const std::vector<double>& groups, const std::vector<double>& y, const std::vector<double>& se,
                      const ScalingOptions& options) {
  ScalingFit out;
  out.n = static_cast<int>(y.size());
  out.line = FitLine(groups, y);
  if (y.empty() || groups.size() != y.size()) return out;
  const size_t n = y.size();

  // Per-point noise: the samples' standard error relative to the value, never below the relative floor (and
  // never zero, so that a perfectly quiet synthetic series still has finite weights).
  double scale_y = 0;
  for (double v : y) scale_y = std::max(scale_y, std::fabs(v));
  Data data{groups, y, std::vector<double>(n), std::max(1e-9 * scale_y, 1e-12)};
  for (size_t i = 0; i < n; ++i) {
    double s = i < se.size() && std::fabs(y[i]) > 0 ? se[i] / std::fabs(y[i]) : 0;
    data.rel[i] = std::max({s, options.relative_noise_floor, 1e-9});
  }

  ModelFit fits[4];
  fits[0] = FitFlat(data);
  if (n >= 2) fits[1] = FitLinearModel(data);
  if (n >= 3) fits[2] = FitStep(data);
  if (n >= 4) fits[3] = FitSaturation(data);

  // When no model fits within the stated noise, the noise is understated: scale it so that the best model's
  // reduced chi-square is 1 (the usual "scale factor"), so that structure in excess noise is not read as a model.
  double scale = 1;
  bool any_dof = false;
  double min_reduced = std::numeric_limits<double>::infinity();
  for (int m = 0; m < 4; ++m) {
    int dof = static_cast<int>(n) - kParams[m];
    if (dof <= 0 || !std::isfinite(fits[m].chi2)) continue;
    any_dof = true;
    min_reduced = std::min(min_reduced, fits[m].chi2 / dof);
  }
  // Needs a point beyond the richest model's parameters to say anything; with fewer the stated noise stands.
  if (n >= 4 && any_dof && min_reduced > 1) scale = min_reduced;

  GrowthModel chosen = GrowthModel::kFlat;
  double best_bic = std::numeric_limits<double>::infinity();
  for (int m = 0; m < 4; ++m) {
    out.bic[m] = fits[m].chi2 / scale + kParams[m] * std::log(static_cast<double>(n));
    // Fewer than 3 points cannot choose a shape; a line is the most that two points say.
    if (n < 3 && m > 1) continue;
    if (out.bic[m] < best_bic) {
      best_bic = out.bic[m];
      chosen = static_cast<GrowthModel>(m);
    }
  }
  if (n == 2) chosen = GrowthModel::kLinear;  // judged by significance below
  double mean_sigma = 0;
  for (size_t i = 0; i < n; ++i) mean_sigma += data.rel[i] * std::fabs(y[i]);
  out.noise = mean_sigma / n * std::sqrt(scale);

  const ModelFit& f = fits[static_cast<int>(chosen)];
  if (chosen != GrowthModel::kFlat && !f.fitted.empty()) {
    out.growth = f.fitted.back() - f.fitted.front();
    double base = std::fabs(f.fitted.front()) > 0 ? std::fabs(f.fitted.front()) : 1e-12;
    out.growth_fraction = out.growth / base;
    // Significance from the whole series, not only its end points: how much the model improves on a flat line
    // relative to the noise (a likelihood-ratio / F-style test), so one wild point does not hide a clear trend.
    // Two points have no residual to compare with: their stated noise decides.
    double improvement = (fits[0].chi2 - f.chi2) / scale;
    double s0 = data.rel.front() * std::fabs(y.front()), s1 = data.rel.back() * std::fabs(y.back());
    double se_growth = std::sqrt(s0 * s0 + s1 * s1);
    bool clear = n >= 3 ? improvement >= options.min_growth_sigmas * options.min_growth_sigmas
                        : std::fabs(out.growth) > options.min_growth_sigmas * se_growth;
    bool significant = clear && std::fabs(out.growth_fraction) > options.min_growth_fraction &&
                       std::fabs(out.growth) >= options.min_growth_us;
    if (!significant) {
      chosen = GrowthModel::kFlat;  // a shape within the noise is no shape
      out.growth = 0;
      out.growth_fraction = 0;
    } else {
      out.grows = out.growth > 0;
    }
  }
  out.model = chosen;
  const ModelFit& c = fits[static_cast<int>(chosen)];
  if (chosen == GrowthModel::kStep || chosen == GrowthModel::kSaturation) out.change_point = c.change_point;
  out.level_before = c.before;
  out.level_after = c.after;
  return out;
}

SlopeBytesFit ClassifySlopeBySize(std::vector<SizeSlope> sizes) {
  SlopeBytesFit out;
  std::sort(sizes.begin(), sizes.end(), [](const SizeSlope& a, const SizeSlope& b) { return a.bytes < b.bytes; });
  std::vector<double> x, y;
  for (const SizeSlope& s : sizes) {
    x.push_back(static_cast<double>(s.bytes));
    y.push_back(s.slope_us_per_group);
  }
  if (sizes.size() >= 2) {
    LinearFit f = FitLine(x, y);
    out.overhead_us_per_group = f.intercept;
    out.us_per_byte_per_group = f.slope;
    if (f.slope > 0) out.implied_gbps = 1e-3 / f.slope;  // bytes/us = MB/s; /1000 = GB/s
  }
  for (const SizeSlope& s : sizes) {
    SlopeBytesFit::PerSize p;
    p.bytes = s.bytes;
    p.slope_us_per_group = s.slope_us_per_group;
    double bytes_term = out.us_per_byte_per_group > 0 ? out.us_per_byte_per_group * static_cast<double>(s.bytes) : 0;
    double denom = bytes_term + std::max(out.overhead_us_per_group, 0.0);
    p.bytes_share = denom > 0 ? std::clamp(bytes_term / denom, 0.0, 1.0) : 0;
    p.bandwidth_bound = p.bytes_share > 0.5 && s.slope_us_per_group > 0;
    out.any_bandwidth_bound = out.any_bandwidth_bound || p.bandwidth_bound;
    out.sizes.push_back(p);
  }
  return out;
}

}  // namespace commbench
