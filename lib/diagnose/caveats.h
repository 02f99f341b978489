// What a "no growth" verdict cannot rule out, said with the measurement that raises it: load from outside the run
// on some points (it slows some group counts more than others, and can hide a growth) and a cgroup CPU quota the
// ranks ran out of (each time, they stall for the rest of an enforcement period, and a loop's cost varies from run
// to run by far more than at full speed); a series that is not a line (shape.h), and a level that ranks
// outnumbering their cores slowed from G=1. Each caveat is one sentence that ends with what to do about it.
#pragma once

#include <string>
#include <vector>

#include "lib/diagnose/analysis_input.h"

namespace commbench {
namespace diagnose {

std::vector<std::string> NoGrowthCaveats(const AnalysisInput& in);

}  // namespace diagnose
}  // namespace commbench
