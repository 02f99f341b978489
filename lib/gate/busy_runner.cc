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

// "+12.5%", or "any change" for an unbounded stretch.
std::string Shown(double stretch) { return std::isfinite(stretch) ? PercentChange(stretch) : "any change"; }

}  // namespace

std::string SharedSteadyLoad(const SequentialPoint& s) {
  const auto judged = JudgedPerSide(s);
  const auto a = judged.find("A"), b = judged.find("B");
  if (a == judged.end() || b == judged.end() || a->second.first == 0 || b->second.first == 0) return "";
  const double share_a = static_cast<double>(a->second.second) / a->second.first;
  const double share_b = static_cast<double>(b->second.second) / b->second.first;
  if (std::min(share_a, share_b) < kSteadyLoadShare || std::abs(share_a - share_b) > kAlikeLoadShares) return "";
  return "A: " + std::to_string(a->second.second) + " of " + std::to_string(a->second.first) +
         ", B: " + std::to_string(b->second.second) + " of " + std::to_string(b->second.first) +
         " judged repeats disturbed";
}

std::string JudgedOnDisturbed(const SequentialPoint& s) {
  const auto judged = JudgedPerSide(s);
  for (const auto& [side, counts] : judged) {
    const auto [n, disturbed] = counts;
    if (n > 0 && disturbed > kMostJudgedDisturbed * n) {
      return side + ": " + std::to_string(disturbed) + " of " + std::to_string(n) + " judged repeats disturbed";
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
  if (const std::string shared = SharedSteadyLoad(s); !shared.empty()) {
    d->reason += "; judged under a load both sides shared (" + shared + ")";
    return;
  }
  const LoadStretch k = MostLoadStretch(s);
  std::string now_side = "new";
  bool has_a = false;
  for (const RepeatRecord& r : s.repeats) {
    if (r.side == "A") {
      has_a = true;
    } else {
      now_side = r.side;
    }
  }
  const std::string could = "its load could make " + (has_a ? "A " + Shown(k.base) + " and " : std::string()) +
                            now_side + " " + Shown(k.now) + " slower at most";
  if (OutlastsLoad(*d, k)) {
    d->reason += "; judged beyond what the load could explain (" + busy + "; " + could + ")";
    return;
  }
  d->change = Change::kInconclusive;
  d->reason = "not judged, the runner was busy (" + busy + ", more than " +
              std::to_string(static_cast<int>(kMostJudgedDisturbed * 100)) + " %; " + could + "): " + d->reason;
}

}  // namespace commbench::gate
