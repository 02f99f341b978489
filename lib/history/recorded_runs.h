// The noise of real runs, for the history's simulators (simulate, detection_table): every point's independent
// repeats in a set of result files, each divided by the median of all of that point's repeats, one vector per
// file and point. A file that does not load ends the tool with its message and exit code 2.
#pragma once

#include <string>
#include <vector>

namespace commbench::history {

std::vector<std::vector<double>> RecordedDeviations(const std::vector<std::string>& files, const char* tool);

}  // namespace commbench::history
