// What a series that is neither flat nor growing does: its points alternate between two levels, or one lies far
// off, or they scatter beyond their noise. A least-squares line (and the verdict "no growth" it gives) describes
// none of these, so the diagnosis names the shape instead. Pure.
#pragma once

#include <string>
#include <vector>

#include "lib/diagnose/analysis_input.h"

namespace commbench {
namespace diagnose {

// kTrend: the points rise (or fall) at every step, by more than kOffShare end to end, yet the fit found no growth
// beyond the run's point noise: a line after all, one the noise leaves unproven (not "not a line").
enum class Shape { kLine, kAlternating, kOneOff, kScattered, kTrend };

struct SeriesShape {
  Shape shape = Shape::kLine;
  std::string sentence;  // what the points do, with their values; "" for a line
};

// A point is off when it lies beyond kOffNoise of its own noise and kOffShare of the series' median from that
// median: far enough that no fit through the rest describes it, on a 2-core VM whose flat points scatter by
// 10-30 % under a neighbour's load.
inline constexpr double kOffNoise = 4;
inline constexpr double kOffShare = 0.5;

// The shape of a series that does not grow (ScalingFit::grows false); kLine for three points or fewer off none.
SeriesShape ShapeOf(const AnalysisInput& in, const SeriesData& s);

// One sentence per series that is not a line, naming it ("Not a line: gloo allreduce 400 B: ..."), and per series
// whose trend the noise leaves unproven ("A trend within the noise: ...").
std::vector<std::string> ShapeCaveats(const AnalysisInput& in);

// A level already slowed at the smallest group count by a cause the data show: ranks that outnumber the cores
// they may use (or their CPU quota) from G=1. "" when none.
std::string SlowedBaselineCaveat(const AnalysisInput& in);

}  // namespace diagnose
}  // namespace commbench
