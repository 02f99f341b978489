// `commbench traffic`'s words: reading a parameter count ("1.3B") and the step's traffic as a few lines of text.
#pragma once

#include <string>
#include <string_view>

#include "lib/core/status.h"
#include "lib/traffic/step.h"

namespace commbench {
namespace traffic {

// "1300000000", "1.3B", "350M", "7G", "125K": decimal suffixes K, M, B or G (10^9), T. InvalidArgument naming
// `flag` and the text otherwise (zero, negative, fractional counts, overflow).
StatusOr<uint64_t> ParseParamCount(std::string_view text, std::string_view flag);

// "4.55 GB (4,550,000,000 B)": decimal units, as bandwidths are (docs/design.md §5.3).
std::string DecimalBytes(uint64_t bytes);

struct StepLabel {
  std::string dtype;      // bf16
  std::string transport;  // what the backend's auto choice assumed ("tcp"), or empty
};
std::string StepToText(const StepRequest& request, const StepTraffic& step, const StepLabel& label);

}  // namespace traffic
}  // namespace commbench
