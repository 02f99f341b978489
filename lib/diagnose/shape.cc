#include "lib/diagnose/shape.h"

#include <algorithm>
#include <cmath>

#include "lib/core/cpu_quota.h"
#include "lib/diagnose/rules/common.h"
#include "lib/stats/summary.h"

namespace commbench {
namespace diagnose {
namespace {

constexpr double kSaturated = 0.7;  // CPU time / (wall x cores the ranks may use) at which they compete

std::string Us(double us) { return Fmt(us, us < 10 ? 2 : 1) + " us"; }

// "G=1,3" for the points at `indices`.
std::string GroupsAt(const SeriesData& s, const std::vector<size_t>& indices) {
  std::string out;
  for (size_t i : indices) out += (out.empty() ? "G=" : ",") + Fmt(s.groups[i], 0);
  return out;
}

// "0.73-0.74 us" over the points at `indices`.
std::string RangeAt(const SeriesData& s, const std::vector<size_t>& indices) {
  double lo = s.p50_us[indices.front()], hi = lo;
  for (size_t i : indices) lo = std::min(lo, s.p50_us[i]), hi = std::max(hi, s.p50_us[i]);
  return lo == hi ? Us(lo) : Fmt(lo, lo < 10 ? 2 : 1) + "-" + Us(hi);
}

}  // namespace

SeriesShape ShapeOf(const AnalysisInput& in, const SeriesData& s) {
  SeriesShape out;
  const size_t n = s.p50_us.size();
  if (n < 3 || s.fit.grows) return out;
  const double median = Median(s.p50_us);
  if (median <= 0) return out;
  const double floor = in.OptionsFor(s).relative_noise_floor;
  std::vector<size_t> off, rest;
  for (size_t i = 0; i < n; ++i) {
    const double noise = std::max(s.se_us[i], floor * s.p50_us[i]);
    const double dev = std::fabs(s.p50_us[i] - median);
    (dev > kOffNoise * noise && dev > kOffShare * median ? off : rest).push_back(i);
  }
  if (off.empty()) return out;
  // Every step the same way: the first or last point lies far from the median because the series moves, not
  // because one point is off.
  bool rises = true, falls = true;
  for (size_t i = 1; i < n; ++i) {
    rises = rises && s.p50_us[i] > s.p50_us[i - 1];
    falls = falls && s.p50_us[i] < s.p50_us[i - 1];
  }
  if (rises || falls) {
    std::vector<double> relative;  // each point's noise, as a share of it
    for (size_t i = 0; i < n; ++i) relative.push_back(std::max(s.se_us[i] / s.p50_us[i], floor));
    out.shape = Shape::kTrend;
    out.sentence = std::string("its points ") + (rises ? "rise" : "fall") + " at every step, from " +
                   Us(s.p50_us.front()) + " at G=" + Fmt(s.groups.front(), 0) + " to " + Us(s.p50_us.back()) +
                   " at G=" + Fmt(s.groups.back(), 0) + ", but within this run's point noise (" +
                   Fmt(100 * Median(relative), 0) +
                   " % a point): rerun with --repeats 5, or on a quieter host, to tell growth";
    return out;
  }
  if (off.size() == 1 && n >= 4) {
    out.shape = Shape::kOneOff;
    out.sentence = "one point lies far off the others: " + GroupsAt(s, off) + " at " + RangeAt(s, off) + " against " +
                   RangeAt(s, rest) + " at the rest";
    return out;
  }
  // Two levels, taking turns: every point on the other side of the midpoint from its neighbour.
  const double mid =
      0.5 * (*std::min_element(s.p50_us.begin(), s.p50_us.end()) + *std::max_element(s.p50_us.begin(), s.p50_us.end()));
  std::vector<size_t> high, low;
  bool alternates = true;
  for (size_t i = 0; i < n; ++i) {
    (s.p50_us[i] > mid ? high : low).push_back(i);
    if (i > 0 && (s.p50_us[i] > mid) == (s.p50_us[i - 1] > mid)) alternates = false;
  }
  if (alternates) {
    out.shape = Shape::kAlternating;
    out.sentence = "its points alternate between two levels: " + RangeAt(s, low) + " at " + GroupsAt(s, low) + " and " +
                   RangeAt(s, high) + " at " + GroupsAt(s, high);
    return out;
  }
  out.shape = Shape::kScattered;
  std::vector<size_t> all(n);
  for (size_t i = 0; i < n; ++i) all[i] = i;
  out.sentence = "its points scatter from " + RangeAt(s, all) + ", " + std::to_string(off.size()) + " of " +
                 std::to_string(n) + " beyond their noise of the median " + Us(median);
  return out;
}

std::vector<std::string> ShapeCaveats(const AnalysisInput& in) {
  std::vector<std::string> out;
  for (const SeriesData& s : in.series) {
    const SeriesShape shape = ShapeOf(in, s);
    if (shape.shape == Shape::kLine) continue;
    if (shape.shape == Shape::kTrend) {
      out.push_back("A trend within the noise: " + Describe(s) + ": " + shape.sentence + ".");
      continue;
    }
    out.push_back("Not a line: " + Describe(s) + ": " + shape.sentence +
                  ". Neither \"growth\" nor \"no growth\" describes that: rerun with --repeats 5 to tell a setting "
                  "that alternates (ranks sharing a process or a core in turn) from noise.");
  }
  return out;
}

std::string SlowedBaselineCaveat(const AnalysisInput& in) {
  for (const SeriesData& s : in.series) {
    // --explain's B sides are not the user's setting: a `--cpus 0` side runs on one core by design.
    if (s.points.empty() || !s.requested) continue;
    const PointData& first = in.First(s);
    // A binding cgroup quota has a caveat of its own (QuotaCaveat), with its throttled periods.
    if (!first.has_cpu || BindingCpuQuota(in, s) > 0) continue;
    const double per_core = RanksPerCore(in, s, first);
    // Ranks that outnumber the cores only slow the loop when they compete for them: busy CPUs, or ranks that
    // waited for one for a material share of an op.
    const bool competed = first.saturation >= kSaturated ||
                          (first.runqueue_wait_us_per_op > 0 && first.runqueue_wait_us_per_op >= 0.25 * first.p50_us);
    if (per_core <= 1.0 || !competed) continue;
    const double cores = CoresForRanks(in, s);
    return "Slowed from the start: at G=" + std::to_string(first.groups) + " " + Describe(s) + " already runs " +
           std::to_string(first.world) + " ranks on " + FormatCpus(cores) + " (" + Fmt(per_core, 1) +
           " per core), so every point, G=" + std::to_string(first.groups) + " at " + Us(first.p50_us) +
           " included, pays for ranks waiting for a CPU: give each rank a core (--cpus, or fewer ranks) to see the "
           "cost without it.";
  }
  return "";
}

}  // namespace diagnose
}  // namespace commbench
