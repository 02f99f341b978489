// One line of the console: where a run's wall time went and the share of it in timed loops (the trailer's wall,
// lib/result/phases.h).
#pragma once

#include <string>

#include "lib/result/result_file.h"

namespace commbench {

// "# Time: 61.2 s wall, 83 % in timed loops (50.8 s); between ops 5.1 s, spawn 1.2 s, ..." with the other phases
// largest first (those under 0.1 s left out); "" for a file that did not record it.
std::string FormatWallTime(const result::ResultTrailer& trailer);

}  // namespace commbench
