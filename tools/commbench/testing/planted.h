// What the planted-cause tests share: one sweep through the real CLI with its result file parsed, and how busy
// the host is before a timing-sensitive plant.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace commbench::testing {

// `commbench sweep --quiet -o FILE ARGS...` in a private directory; the parsed result (an empty object when the
// sweep failed). Fails the current test on a non-zero exit or a result that is not complete. `seconds` (may be
// null) gets the sweep's wall time.
nlohmann::json RunSweep(const std::vector<std::string>& args, double* seconds = nullptr);

// Share of all CPUs busy over `seconds` (from /proc/stat): other work on the host.
double HostBusyFraction(double seconds);

}  // namespace commbench::testing
