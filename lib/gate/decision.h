// The gate's decision for one point: did the new side get slower, faster, stay
// the same, or can this data not tell? The evidence is one median per
// independent repeat (a fresh launch) on each side, never the iterations of one
// launch: those share the launch's placement and neighbours, so thousands of
// them make a 1 % drift between launches look significant (docs/design.md §7). Pure
// functions, fixed seeds.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "lib/core/name_table.h"
#include "lib/stats/summary.h"  // Median

namespace commbench::gate {

enum class Change { kFaster, kSlower, kUnchanged, kInconclusive };

inline constexpr NameTable<Change, 4> kChangeNames = {{
    {Change::kFaster, "faster"},
    {Change::kSlower, "slower"},
    {Change::kUnchanged, "unchanged"},
    {Change::kInconclusive, "inconclusive"},
}};

inline std::string Name(Change c) { return std::string(NameOf(kChangeNames, c)); }

struct DecisionOptions {
  double min_effect = 0.05;  // relative change below which nobody cares (5 %)
  double alpha = 0.01;       // two-sided significance of the rank test
  // The p the rank test must reach at this look of a sequential gate (lib/gate/sequential.h: the alpha-spending
  // boundary, at most alpha; 0 at a look that cannot stop); negative: alpha (one look, the fixed-sample test).
  double boundary_p = -1;
  double power = 0.8;    // for the smallest detectable change
  int resamples = 2000;  // bootstrap of the ratio of medians
  uint64_t seed = 1;
  // gate --ab: base[i] and now[i] ran in the same round (A then B, one launch each), so the pairs can be judged too
  // (PairedEvidence); used when their interval is the tighter.
  bool paired = false;
  // --min-effect auto: the floor is what these repeats resolve (Resolution), never below min_effect. The
  // resolution is projected to the repeats a side the job will have at its end (final_base, final_now; 0: the
  // repeats given), so that an early look does not call a point unchanged within the wide floor of few repeats.
  bool auto_floor = false;
  int64_t final_base = 0, final_now = 0;
};

// The resolution of an interval of half-width h (relative): kResolutionHalfWidths h. A point whose true ratio is 1
// lands within 1 +- that, interval included, about 97 % of the time (its estimate within z(0.015) = 2.17 of its
// own standard error, the interval 1.96 of them beyond it); a change of that size is found about as often.
inline constexpr double kResolutionHalfWidths = 2.1;

// An interval of a ratio of times from one kind of evidence.
struct RatioEvidence {
  int n = 0;  // repeats a side (unpaired) or pairs
  double ratio = std::numeric_limits<double>::quiet_NaN();
  double lo = std::numeric_limits<double>::quiet_NaN(), hi = std::numeric_limits<double>::quiet_NaN();
  double p = 1;
  double detectable = std::numeric_limits<double>::infinity();
};

struct RankTest {
  double u = 0;  // Mann-Whitney U of the new side
  double p = 1;  // two-sided
  bool exact = false;
};

struct Decision {
  Change change = Change::kInconclusive;
  // median(new repeats) / median(base repeats), > 1 is slower, and its 95 % bootstrap interval; NaN when not
  // computed (a side without repeats).
  double ratio = std::numeric_limits<double>::quiet_NaN();
  double ratio_lo = std::numeric_limits<double>::quiet_NaN(), ratio_hi = std::numeric_limits<double>::quiet_NaN();
  RankTest test;
  // The smallest relative change these repeats could have detected (at `alpha`,
  // with `power`), from their spread; infinity when there are too few repeats
  // for the test ever to reach `alpha`.
  double detectable = 0;
  std::string reason;  // one sentence: why this verdict, with the figures
  // Both kinds of evidence where the repeats are paired (DecisionOptions::paired): the ratio of medians of the two
  // sides (unpaired) and the median of each B over its neighbouring A's (paired); `paired_used` when the verdict
  // rests on the pairs (their interval the tighter). Without pairs, `unpaired` repeats ratio, interval and p.
  RatioEvidence unpaired, paired;
  bool paired_used = false;
  // The floor the point was judged with, and (auto_floor) what its repeats resolve: NaN without auto_floor.
  double floor = 0;
  double resolution = std::numeric_limits<double>::quiet_NaN();
};

// The pairs of an --ab point: per round i, log(B_i) less the mean of log(A_i) and log(A_i+1) (the A's either side
// of B in time: a runner drifting between states minutes apart moves both alike, and the order A-before-B cancels),
// the last B against its one A. Their median is the log ratio; its interval a circular block bootstrap (blocks of
// about n^(1/3) pairs: neighbouring pairs share an A and a spell of the host) and p from that interval's standard
// error. `base` and `now` of equal length, at least 2.
RatioEvidence PairedEvidence(const std::vector<double> &base, const std::vector<double> &now, double threshold,
                             double power, int resamples, uint64_t seed);

// Mann-Whitney U of `b` against `a`: exact (all rank arrangements) when there
// are no ties and at most 20 values a side, the normal approximation with tie
// correction otherwise.
RankTest MannWhitney(const std::vector<double> &a, const std::vector<double> &b);

// The smallest two-sided p an exact rank test can give with these side sizes: 2
// / C(na + nb, na).
double SmallestAttainableP(int na, int nb);

// A ratio as the signed change the reasons print: 1.052 -> "+5.2%".
std::string PercentChange(double ratio);

// What a bootstrap compares the two sides by: the median, or (the host's speed) a lower quartile.
using SampleStatistic = double (*)(std::vector<double>);

// Percentile bootstrap (each side resampled on its own) of statistic(b*) / statistic(a*).
void BootstrapRatioCI(const std::vector<double> &a, const std::vector<double> &b, int resamples, uint64_t seed,
                      double *lo, double *hi, SampleStatistic statistic = Median);

// The verdict from a decision's ratio, interval and detectable change, and whether its test was significant, as
// Decide describes it below; `figures` close each reason, `too_noisy` opens the one of a change too small to tell
// ("noise above the floor: these repeats" + " could only detect 12.0% or more; ...").
void JudgeChange(bool significant, const std::string &figures, const std::string &too_noisy, double min_effect,
                 Decision *d);

// `base` and `now`: one median time per repeat on each side.
//   slower: the rank test is significant, the interval lies above 1 and reaches
//   past 1 + min_effect (a change of the floor's size cannot be ruled out);
//   faster: the same below; unchanged: the interval lies within 1 +- min_effect
//   and the detectable change is at most min_effect (a significant change that
//   small is reported as unchanged, with its size); otherwise inconclusive (too
//   few repeats, or noise above the floor).
Decision Decide(const std::vector<double> &base, const std::vector<double> &now, const DecisionOptions &options = {});

}  // namespace commbench::gate
