// Least-squares line y = intercept + slope * x, with R^2. Pure.
#pragma once

#include <vector>

namespace commbench {

struct LinearFit {
  double slope = 0;
  double intercept = 0;
  double r2 = 0;  // 1 for a perfect fit; 0 when x explains nothing (or fewer than 3 points vary)
  int n = 0;
};

LinearFit FitLine(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace commbench
