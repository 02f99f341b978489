// The gate's stopping rule for sequential repeats (docs/gate.md, "Sequential repeats"): the gate looks at a point
// after every few rounds of repeats and stops it once decided, so each look must spend only part of the error
// rate, or repeated looks would turn a 1 % test into a 5 % one. Lan-DeMets alpha spending with the
// O'Brien-Fleming-type function alpha(t) = 2 - 2 Phi(z(alpha/2) / sqrt(t)): almost nothing spent at early looks,
// close to the fixed-sample test's alpha at the last. The boundaries come from the exact joint law of the looks
// (a Brownian motion observed at the information fractions), by numerical integration on a grid; pure functions.
#pragma once

#include <vector>

namespace commbench::gate {

// The statistical information of a two-sample comparison with these repeats a side: 1 / (1/n_base + 1/n_new).
double Information(double n_base, double n_new);

// O'Brien-Fleming-type spending: the share of the two-sided `alpha` spent by information fraction t (0 at t = 0,
// alpha at t >= 1).
double SpentAlpha(double alpha, double t);

struct Boundary {
  double z = 0;      // |z| at or above this at this look stops the series with a change
  double p = 0;      // the same as a two-sided p-value: 2 (1 - Phi(z))
  double spent = 0;  // alpha spent up to and including this look
};

// The two-sided boundaries of looks at increasing information fractions `t` (each in (0, 1]; a look not past the
// previous one, or one with nothing left to spend, gets z = infinity and p = 0: it cannot stop the series). The
// probability, under no change, that some look's |z| reaches its boundary is SpentAlpha(alpha, t.back()).
std::vector<Boundary> SpendingBoundaries(double alpha, const std::vector<double> &t);

// Repeats a side at one look.
struct Look {
  int base = 0, now = 0;
};

// The boundary of the last of `looks` (in the order taken) when at most `planned` repeats a side are planned: the
// information fractions are Information(look) / Information(planned).
Boundary LastLookBoundary(double alpha, const std::vector<Look> &looks, Look planned);

// z(q): the standard normal's upper q-quantile (q in (0, 1)).
double NormalUpperQuantile(double q);

}  // namespace commbench::gate
