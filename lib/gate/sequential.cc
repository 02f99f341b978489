#include "lib/gate/sequential.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace commbench::gate {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Grid points over a look's continuation region (odd, for Simpson's rule): 601 keep the boundaries within 1e-3
// of gsDesign's published ones for 5-40 looks.
constexpr int kGrid = 601;

double Phi(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }
double Density(double z) { return std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI); }

// The sub-density of the score S(t) = sqrt(t) Z(t) (a Brownian motion) on a grid, over the paths that have not
// stopped yet: grid[i] with quadrature weight weight[i] (density x Simpson weight).
struct Continuation {
  std::vector<double> s, weight;
};

Continuation Grid(double half_width) {
  Continuation g;
  g.s.resize(kGrid);
  g.weight.resize(kGrid);
  const double h = 2 * half_width / (kGrid - 1);
  for (int i = 0; i < kGrid; ++i) {
    g.s[i] = -half_width + h * i;
    g.weight[i] = h / 3 * (i == 0 || i == kGrid - 1 ? 1 : (i % 2 ? 4 : 2));
  }
  return g;
}

// The probability that a path still going at the previous look ends at or beyond +-c on the score scale, `sd`
// the standard deviation of the increment.
double Crossing(const Continuation &g, double c, double sd) {
  double p = 0;
  for (size_t j = 0; j < g.s.size(); ++j) p += g.weight[j] * (Phi((-c - g.s[j]) / sd) + Phi((g.s[j] - c) / sd));
  return p;
}

// The continuation sub-density over (-c, c) at the next look.
Continuation Advance(const Continuation &g, double c, double sd) {
  Continuation next = Grid(c);
  for (int i = 0; i < kGrid; ++i) {
    double density = 0;
    for (size_t j = 0; j < g.s.size(); ++j) density += g.weight[j] * Density((next.s[i] - g.s[j]) / sd) / sd;
    next.weight[i] *= density;
  }
  return next;
}

}  // namespace

double Information(double n_base, double n_new) {
  if (n_base <= 0 || n_new <= 0) return 0;
  return 1 / (1 / n_base + 1 / n_new);
}

double NormalUpperQuantile(double q) {
  double lo = -40, hi = 40;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (1 - Phi(mid) > q ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

double SpentAlpha(double alpha, double t) {
  if (t <= 0) return 0;
  t = std::min(t, 1.0);
  return std::min(alpha, 2 - 2 * Phi(NormalUpperQuantile(alpha / 2) / std::sqrt(t)));
}

std::vector<Boundary> SpendingBoundaries(double alpha, const std::vector<double> &t) {
  std::vector<Boundary> out;
  Continuation g;  // empty before the first look: every path goes on from S(0) = 0
  double last_t = 0, spent = 0;
  for (double raw : t) {
    const double tk = std::min(raw, 1.0);
    Boundary b{kInf, 0, spent};
    if (!(tk > last_t)) {
      out.push_back(b);
      continue;
    }
    const double sd = std::sqrt(tk - last_t), scale = std::sqrt(tk);
    const double budget = SpentAlpha(alpha, tk) - spent;
    auto crossing = [&](double z) { return g.s.empty() ? 2 * Phi(-z) : Crossing(g, z * scale, sd); };
    if (budget > 1e-12 && crossing(12) < budget) {
      double lo = 0, hi = 12;  // crossing() falls as z grows
      for (int i = 0; i < 60; ++i) {
        const double mid = 0.5 * (lo + hi);
        (crossing(mid) > budget ? lo : hi) = mid;
      }
      b.z = hi;
      b.p = 2 * Phi(-hi);
      spent += crossing(hi);
      b.spent = spent;
    }
    // Paths that went on: within the boundary, or (no boundary) within 9 standard deviations.
    const double c = std::min(b.z, 9.0) * scale;
    if (g.s.empty()) {
      g = Grid(c);
      for (int i = 0; i < kGrid; ++i) g.weight[i] *= Density(g.s[i] / scale) / scale;
    } else {
      g = Advance(g, c, sd);
    }
    last_t = tk;
    out.push_back(b);
  }
  return out;
}

Boundary LastLookBoundary(double alpha, const std::vector<Look> &looks, Look planned) {
  if (looks.empty()) return Boundary{kInf, 0, 0};
  const double full = Information(planned.base, planned.now);
  std::vector<double> t;
  for (const Look &l : looks) t.push_back(full > 0 ? Information(l.base, l.now) / full : 1);
  return SpendingBoundaries(alpha, t).back();
}

}  // namespace commbench::gate
