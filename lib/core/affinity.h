// The CPUs this process may run on (sched_getaffinity), in ascending order.
#pragma once

#include <vector>

namespace commbench {

std::vector<int> AllowedCpus();

}  // namespace commbench
