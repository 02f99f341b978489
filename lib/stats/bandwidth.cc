#include "lib/stats/bandwidth.h"

namespace commbench {

double BusBwFactor(Collective op, int n) {
  if (n <= 1) return 1.0;
  double nn = static_cast<double>(n);
  return op == Collective::kAllreduce ? 2.0 * (nn - 1) / nn : (nn - 1) / nn;
}

Bandwidth ComputeBandwidth(Collective op, uint64_t bytes, int n, double time_us) {
  Bandwidth b;
  if (time_us <= 0) return b;
  b.algbw_gbps = static_cast<double>(bytes) / (time_us * 1e-6) / 1e9;
  b.busbw_gbps = b.algbw_gbps * BusBwFactor(op, n);
  return b;
}

}  // namespace commbench
