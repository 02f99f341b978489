// Issue 52 on the console: per point, the collective's own time and the arrival skew apart (medians and p99),
// and the concurrent groups' aggregate bus bandwidth both ways: the plain sum and over their busy time.
#pragma once

#include <string>
#include <vector>

#include "lib/result/point_result.h"

namespace commbench {

// One line per point that recorded them; "" when none did (older files).
std::string FormatArrivals(const std::vector<result::PointResult>& points);

}  // namespace commbench
