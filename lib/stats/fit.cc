#include "lib/stats/fit.h"

#include <cmath>

namespace commbench {

LinearFit FitLine(const std::vector<double>& x, const std::vector<double>& y) {
  LinearFit f;
  f.n = static_cast<int>(x.size());
  if (x.empty() || x.size() != y.size()) return f;
  double mx = 0, my = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= f.n;
  my /= f.n;
  double sxx = 0, sxy = 0, syy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (sxx == 0) {
    f.intercept = my;
    return f;
  }
  f.slope = sxy / sxx;
  f.intercept = my - f.slope * mx;
  f.r2 = syy > 0 ? (sxy * sxy) / (sxx * syy) : 1.0;
  return f;
}

}  // namespace commbench
