// A sequential gate's repeats at one point, and what a busy runner leaves of its verdict there (docs/gate.md,
// "Disturbed repeats"): a verdict judged on repeats something else disturbed stands only where the load was one both
// --ab sides shared, or where it could not have made the change (or hidden it) by its own size. Pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/gate/decision.h"

namespace commbench::gate {

// One repeat a sequential gate measured at a point, as the disturbance rule judged it (lib/gate/disturbance.h).
struct RepeatRecord {
  std::string side;           // "A", "B" (--ab), "new" (--baseline)
  int64_t round = 0;          // the round it ran in; a re-run has its disturbed repeat's round
  bool disturbed = false;     // measured while something else held the ranks' CPUs
  bool replaced = false;      // disturbed and re-run rather than judged
  double outside_share = 0;   // outside processes' share of the ranks' CPUs over the timed window
  double runqueue_share = 0;  // the ranks' run-queue wait as a share of an operation's median time
  std::string why;            // what disturbed it; "" when nothing did
  int64_t migrations = -1;    // the most any rank moved between CPUs over its timed loop; -1: not recorded
};

// One point of a sequential gate (gate's repeats added round by round until decided, docs/gate.md): where its last
// look stood, and what its repeats went through. Compare judges the point at that look's boundary.
struct SequentialPoint {
  int looks = 0;           // looks taken at this point
  double boundary_p = -1;  // the p its rank test had to reach at the last look (DecisionOptions::boundary_p)
  double spent_alpha = 0;  // the error rate spent up to that look
  double information = 0;  // that look's information fraction (1: the planned repeats)
  bool stopped = false;    // decided before the budget or the planned repeats ran out
  int disturbed = 0;       // repeats measured while something else held the ranks' CPUs (lib/gate/disturbance.h)
  int replaced = 0;        // of those, re-run (the rest were judged, the bound reached)
  std::vector<std::string> disturbances;  // "B repeat 3: outside processes took ...", the first few
  std::vector<RepeatRecord> repeats;      // every repeat measured, in order, re-runs included
  // The repeats a side the job was to end with, as projected at the last look (the planned repeats, or fewer where
  // the budget affords fewer rounds): --min-effect auto's resolution is taken there (DecisionOptions::final_base).
  int64_t final_base = 0, final_now = 0;
};

// Where more than this share of one side's judged repeats of a point were disturbed (judged: the re-run bound was
// reached), the verdict there (a change, or none) is the busy runner's as much as the build's: the point is
// inconclusive, unless the load was one both --ab sides shared (TypicalLoadShift) or could not have made it
// (MostLoadStretch).
inline constexpr double kMostJudgedDisturbed = 0.10;

// "new: 80 of 80 judged repeats disturbed": the first side past kMostJudgedDisturbed, or "" when none is.
std::string JudgedOnDisturbed(const SequentialPoint& s);

// gate --ab interleaves its sides (A B A B ...), so a load that is not the build's weighs on both alike, whether it
// stayed for the whole job or came and went; what it can still move the ratio by is how much more it weighed on one
// side. A side's typical load is the mean over its judged repeats of log(stretch) (Stretch below: 1 / (1 - w)); the
// shift is exp of the difference, on the side that carried more (what a mean of log times would move by; the paired
// median the gate judges moves by less where a few repeats carry the load). Disturbed repeats no share measures (a
// pinned rank that moved) are left out of both means where their shares of the sides differ by at most
// kAlikeUnmeasured; otherwise the shift is unmeasured (infinite on the side with more). Only --ab's sides can share a
// load: a stored baseline ran elsewhere.
inline constexpr double kAlikeUnmeasured = 0.10;

// How much slower a load could make each side, as a factor.
struct LoadStretch {
  double base = 1;  // side A (--ab); 1 for a stored baseline
  double now = 1;   // side B or "new"
};
LoadStretch TypicalLoadShift(const SequentialPoint& s);  // base: how much slower A's typical load could make A than
                                                         // B's makes B (>= 1); now: B than A

// "A: 80 of 80, B: 79 of 80 judged repeats disturbed".
std::string DisturbedCounts(const SequentialPoint& s);

// How much slower a load could have made a side's median repeat: each judged repeat stretched by at most
// 1 / (1 - w), w its outside processes' share of the ranks' CPUs or, where those also took at least
// kWaitWitnessShare, the ranks' run-queue wait beyond the point's undisturbed repeats' (as a share of an operation),
// whichever is larger; a side's bound is its largest repeat's (a median of stretched values is at most the largest
// stretch times the median of the unstretched). A disturbed repeat whose w is under kWaitWitnessShare was disturbed
// by something no share measures (a pinned rank that moved): it bounds nothing, infinity. 1 for a side without records
// (a stored baseline's repeats).
inline constexpr double kWaitWitnessShare = 0.05;
inline constexpr double kMostStretchedShare = 0.9;  // w beyond this is taken as this (a stretch of 10)

LoadStretch MostLoadStretch(const SequentialPoint& s);

// Whether `d` (a change or none, judged with floor d.floor) stands when each side may be up to `k` slower by its
// load alone: the true ratio lies in [ratio_lo / k.now, ratio_hi * k.base], and a slowdown stands if that stays above
// 1, a speed-up if below 1, "unchanged" if within 1 +- floor.
bool OutlastsLoad(const Decision& d, const LoadStretch& k);

// The busy-runner rule on a decided verdict: where a side's judged repeats were disturbed past
// kMostJudgedDisturbed, the verdict stands (and says under what load) if it outlasts the sides' typical loads'
// shift (--ab) or each side's largest stretch, and otherwise becomes inconclusive, "not judged, the runner was busy
// (...)".
void JudgeOnBusyRunner(const SequentialPoint& s, Decision* d);

}  // namespace commbench::gate
