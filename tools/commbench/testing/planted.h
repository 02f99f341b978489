// What the planted-cause tests share: one sweep through the real CLI with its result file parsed, and what other
// work took from the host meanwhile.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace commbench::testing {

// What the kernel saw other work take while a sweep ran, measured apart from the product: all CPU time the host
// spent (/proc/stat) less this test process's and its reaped descendants' (the driver and the ranks). It lets a
// test tell a load the product names from one it made up.
struct OutsideWitness {
  double wall_s = 0;
  double outside_cpu_s = 0;  // CPU-seconds, summed over all CPUs
};

// `commbench sweep --quiet -o FILE ARGS...` in a private directory; the parsed result (an empty object when the
// sweep failed). Fails the current test on a non-zero exit or a result that is not complete. `seconds` (may be
// null) gets the sweep's wall time; `witness` (may be null) what other work took meanwhile.
nlohmann::json RunSweep(const std::vector<std::string>& args, double* seconds = nullptr,
                        OutsideWitness* witness = nullptr);

}  // namespace commbench::testing
