#include "lib/stats/scaling.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace commbench {
namespace {

constexpr int kParams[4] = {1, 2, 3, 3};  // flat, linear, step (2 levels + where), saturation (a, b, knee)

struct ModelFit {
  double chi2 = std::numeric_limits<double>::infinity();
  std::vector<double> fitted;
  double change_point = 0, before = 0, after = 0;
};

double Chi2(const std::vector<double>& y, const std::vector<double>& f, const std::vector<double>& w) {
  double c = 0;
  for (size_t i = 0; i < y.size(); ++i) c += w[i] * (y[i] - f[i]) * (y[i] - f[i]);
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
bool WeightedLine(const std::vector<double>& x, const std::vector<double>& y, const std::vector<double>& w,
                  double* a, double* b) {
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

ModelFit FitFlat(const std::vector<double>& y, const std::vector<double>& w) {
  ModelFit m;
  double c = WeightedMean(y, w, 0, y.size());
  m.fitted.assign(y.size(), c);
  m.before = m.after = c;
  m.chi2 = Chi2(y, m.fitted, w);
  return m;
}

ModelFit FitLinearModel(const std::vector<double>& g, const std::vector<double>& y, const std::vector<double>& w) {
  ModelFit m;
  double a = 0, b = 0;
  if (!WeightedLine(g, y, w, &a, &b)) return m;
  for (double x : g) m.fitted.push_back(a + b * x);
  m.before = m.fitted.front();
  m.after = m.fitted.back();
  m.chi2 = Chi2(y, m.fitted, w);
  return m;
}

// Best single change point: the upper level starts at g[j].
ModelFit FitStep(const std::vector<double>& g, const std::vector<double>& y, const std::vector<double>& w) {
  ModelFit best;
  size_t n = y.size();
  for (size_t j = 1; j < n; ++j) {
    ModelFit m;
    m.before = WeightedMean(y, w, 0, j);
    m.after = WeightedMean(y, w, j, n);
    m.fitted.assign(n, m.before);
    std::fill(m.fitted.begin() + static_cast<long>(j), m.fitted.end(), m.after);
    m.change_point = g[j];
    m.chi2 = Chi2(y, m.fitted, w);
    if (m.chi2 < best.chi2) best = m;
  }
  return best;
}

// Hockey stick a + b*min(G, knee) with b > 0. The knee needs three points on the rise (with two it is a step)
// and one on the plateau (with none it is a line).
ModelFit FitSaturation(const std::vector<double>& g, const std::vector<double>& y, const std::vector<double>& w) {
  ModelFit best;
  size_t n = y.size();
  for (size_t j = 2; j + 1 < n; ++j) {
    std::vector<double> x(n);
    for (size_t i = 0; i < n; ++i) x[i] = std::min(g[i], g[j]);
    double a = 0, b = 0;
    if (!WeightedLine(x, y, w, &a, &b) || b <= 0) continue;
    ModelFit m;
    for (double xi : x) m.fitted.push_back(a + b * xi);
    m.change_point = g[j];
    m.before = m.fitted.front();
    m.after = m.fitted.back();
    m.chi2 = Chi2(y, m.fitted, w);
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

ScalingFit FitScaling(const std::vector<double>& groups, const std::vector<double>& y,
                      const std::vector<double>& se, const ScalingOptions& options) {
  ScalingFit out;
  out.n = static_cast<int>(y.size());
  out.line = FitLine(groups, y);
  if (y.empty() || groups.size() != y.size()) return out;
  const size_t n = y.size();

  // Per-point noise: the samples' standard error, never below the relative floor (and never zero, so that a
  // perfectly quiet synthetic series still has finite weights).
  double scale_y = 0;
  for (double v : y) scale_y = std::max(scale_y, std::fabs(v));
  std::vector<double> sigma(n), w(n);
  for (size_t i = 0; i < n; ++i) {
    double s = i < se.size() ? se[i] : 0;
    s = std::max({s, options.relative_noise_floor * std::fabs(y[i]), 1e-9 * scale_y, 1e-12});
    sigma[i] = s;
  }

  ModelFit fits[4];
  for (size_t i = 0; i < n; ++i) w[i] = 1 / (sigma[i] * sigma[i]);
  fits[0] = FitFlat(y, w);
  if (n >= 2) fits[1] = FitLinearModel(groups, y, w);
  if (n >= 3) fits[2] = FitStep(groups, y, w);
  if (n >= 4) fits[3] = FitSaturation(groups, y, w);

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
  for (double s : sigma) mean_sigma += s;
  out.noise = mean_sigma / n * std::sqrt(scale);

  const ModelFit& f = fits[static_cast<int>(chosen)];
  if (chosen != GrowthModel::kFlat && !f.fitted.empty()) {
    out.growth = f.fitted.back() - f.fitted.front();
    double base = std::fabs(f.fitted.front()) > 0 ? std::fabs(f.fitted.front()) : 1e-12;
    out.growth_fraction = out.growth / base;
    double se_growth = std::sqrt(sigma.front() * sigma.front() + sigma.back() * sigma.back()) * std::sqrt(scale);
    bool significant = std::fabs(out.growth) > options.min_growth_sigmas * se_growth &&
                       std::fabs(out.growth_fraction) > options.min_growth_fraction;
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
