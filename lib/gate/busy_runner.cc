#include "lib/gate/busy_runner.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "lib/stats/summary.h"

namespace commbench::gate {
namespace {

// side -> {judged repeats, of those disturbed}
std::map<std::string, std::pair<int, int>> JudgedPerSide(const SequentialPoint& s) {
  std::map<std::string, std::pair<int, int>> judged;
  for (const RepeatRecord& r : s.repeats) {
    if (r.replaced) continue;
    auto& [n, disturbed] = judged[r.side];
    ++n;
    disturbed += r.disturbed;
  }
  return judged;
}

// The run-queue wait a point's ranks make on their own (a pinned rank's I/O thread queues behind it): the median of
// its undisturbed judged repeats', 0 when none was undisturbed.
double QuietWait(const SequentialPoint& s) {
  std::vector<double> waits;
  for (const RepeatRecord& r : s.repeats) {
    if (!r.replaced && !r.disturbed) waits.push_back(r.runqueue_share);
  }
  return waits.empty() ? 0 : Median(waits);
}

double Stretch(const RepeatRecord& r, double quiet_wait) {
  double w = r.outside_share;
  if (r.outside_share >= kWaitWitnessShare) w = std::max(w, r.runqueue_share - quiet_wait);
  if (r.disturbed && w < kWaitWitnessShare) return std::numeric_limits<double>::infinity();
  return 1 / (1 - std::min(std::max(w, 0.0), kMostStretchedShare));
}

// "B: 12 of 20": one side's disturbed judged repeats.
std::string Counted(const std::string& side, const std::pair<int, int>& counts) {
  return side + ": " + std::to_string(counts.second) + " of " + std::to_string(counts.first);
}

// Whether both --ab sides had more than kMostJudgedDisturbed of their judged repeats disturbed.
bool BothDisturbed(const SequentialPoint& s) {
  int past = 0;
  for (const auto& [side, counts] : JudgedPerSide(s)) past += counts.second > kMostJudgedDisturbed * counts.first;
  return past == 2;
}

// "+12.5%", or "any change" for an unbounded stretch.
std::string Shown(double stretch) { return std::isfinite(stretch) ? PercentChange(stretch) : "any change"; }

}  // namespace

std::string DisturbedCounts(const SequentialPoint& s) {
  std::string out;
  for (const auto& [side, counts] : JudgedPerSide(s)) {
    out += (out.empty() ? "" : ", ") + Counted(side, counts);
  }
  return out + " judged repeats disturbed";
}

LoadStretch TypicalLoadShift(const SequentialPoint& s) {
  const double quiet_wait = QuietWait(s);
  struct Side {
    double log_sum = 0;
    int measured = 0, unmeasured = 0;
  };
  std::map<std::string, Side> sides;
  for (const RepeatRecord& r : s.repeats) {
    if (r.replaced) continue;
    Side& side = sides[r.side];
    const double k = Stretch(r, quiet_wait);
    if (std::isfinite(k)) {
      side.log_sum += std::log(k);
      ++side.measured;
    } else {
      ++side.unmeasured;
    }
  }
  const double inf = std::numeric_limits<double>::infinity();
  const Side a = sides["A"], b = sides["B"];
  if (a.measured == 0 || b.measured == 0) return {inf, inf};
  const double un_a = static_cast<double>(a.unmeasured) / (a.measured + a.unmeasured);
  const double un_b = static_cast<double>(b.unmeasured) / (b.measured + b.unmeasured);
  if (un_a - un_b > kAlikeUnmeasured) return {inf, 1};
  if (un_b - un_a > kAlikeUnmeasured) return {1, inf};
  const double diff = a.log_sum / a.measured - b.log_sum / b.measured;
  return {std::exp(std::max(diff, 0.0)), std::exp(std::max(-diff, 0.0))};
}

std::string JudgedOnDisturbed(const SequentialPoint& s) {
  for (const auto& [side, counts] : JudgedPerSide(s)) {
    if (counts.first > 0 && counts.second > kMostJudgedDisturbed * counts.first) {
      return Counted(side, counts) + " judged repeats disturbed";
    }
  }
  return "";
}

LoadStretch MostLoadStretch(const SequentialPoint& s) {
  const double quiet_wait = QuietWait(s);
  LoadStretch k;
  for (const RepeatRecord& r : s.repeats) {
    if (r.replaced) continue;
    double& side = r.side == "A" ? k.base : k.now;
    side = std::max(side, Stretch(r, quiet_wait));
  }
  return k;
}

bool OutlastsLoad(const Decision& d, const LoadStretch& k) {
  const double lo = d.ratio_lo / k.now, hi = d.ratio_hi * k.base;
  if (!(lo == lo) || !(hi == hi)) return false;  // NaN: an interval unbounded by the load
  switch (d.change) {
    case Change::kSlower:
      return lo > 1;
    case Change::kFaster:
      return hi < 1;
    case Change::kUnchanged:
      return lo >= 1 - d.floor && hi <= 1 + d.floor;
    case Change::kInconclusive:
      return false;
  }
  return false;
}

void JudgeOnBusyRunner(const SequentialPoint& s, Decision* d) {
  if (d->change == Change::kInconclusive) return;
  const std::string busy = JudgedOnDisturbed(s);
  if (busy.empty()) return;
  bool has_a = false;
  std::string now_side = "new";
  for (const RepeatRecord& r : s.repeats) {
    if (r.side == "A") {
      has_a = true;
    } else {
      now_side = r.side;
    }
  }
  const LoadStretch shift = has_a ? TypicalLoadShift(s) : LoadStretch{};
  const std::string shifted = shift.now >= shift.base
                                  ? now_side + "'s typical load could make it " + Shown(shift.now) + " slower than A"
                                  : "A's typical load could make it " + Shown(shift.base) + " slower than " + now_side;
  if (has_a && OutlastsLoad(*d, shift)) {
    const bool both = BothDisturbed(s);
    d->reason += std::string(both ? "; judged under a load both sides shared ("
                                  : "; judged beyond what the sides' difference in load could make (") +
                 DisturbedCounts(s) + "; " + shifted + ")";
    return;
  }
  const LoadStretch k = MostLoadStretch(s);
  std::string could = "its load could make " + (has_a ? "A " + Shown(k.base) + " and " : std::string()) + now_side +
                      " " + Shown(k.now) + " slower at most";
  if (OutlastsLoad(*d, k)) {
    d->reason += "; judged beyond what the load could explain (" + busy + "; " + could + ")";
    return;
  }
  if (has_a) could += ", " + shifted;
  d->change = Change::kInconclusive;
  d->reason = "not judged, the runner was busy (" + busy + ", more than " +
              std::to_string(static_cast<int>(kMostJudgedDisturbed * 100)) + " %; " + could + "): " + d->reason;
}

}  // namespace commbench::gate
