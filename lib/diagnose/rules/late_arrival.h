// Transfer and arrival apart (issue 52): a synchronous collective turns every late rank into everyone's wait, so
// a series can grow with the operation's own time flat. SplitGrowth reads what its growth is made of; the rules of
// causes that slow the operation itself (shared bandwidth, serialised streams or copies, a slow group's op) stay
// quiet on a series that reads late arrival, and the late_arrival rule names what holds the ranks.
#pragma once

#include <optional>

#include "lib/diagnose/analysis_input.h"
#include "lib/result/diagnosis.h"

namespace commbench {
namespace diagnose {

// Late arrival: the skew carries at least this share of the growth per op...
inline constexpr double kSkewShareOfGrowth = 0.5;
// ... and the transfer at most this share (it "stays flat"); the transfer likewise for a transfer reading.
inline constexpr double kFlatShareOfGrowth = 0.25;

// A growing series whose first and last points recorded their transfer and skew: the growth of each (means, the
// fits' statistic) against the loop cost's, and the reading. Nothing for a series that does not grow or lacks them.
std::optional<result::GrowthSplit> SplitGrowth(const AnalysisInput& in, const SeriesData& s);

// The series grows by late arrival: its transfer stays flat while the skew grows.
bool GrowsByLateArrival(const AnalysisInput& in, const SeriesData& s);

}  // namespace diagnose
}  // namespace commbench
