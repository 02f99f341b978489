// A/B evidence for a cause: the factor a rule's A/B varies, every partner series that varies it and nothing else,
// the cut each one makes with a bootstrap 95% interval, and the status that follows from all of them. Pure.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "lib/diagnose/analysis_input.h"
#include "lib/result/finding.h"

namespace commbench {
namespace diagnose {

// What a rule's A/B changes. A partner differs from A in exactly one of `axes` and equals it on every other axis;
// `removes` says whether that partner is the side with the cause removed (more cores, pinned, sequential, ...).
struct AbFactor {
  std::string name;               // for sentences: "ranks per core"
  std::vector<std::string> axes;  // the series axes that carry the factor; empty: the rule has no A/B
  std::function<bool(const AnalysisInput& in, const SeriesData& a, const SeriesData& b, const std::string& axis)>
      removes;

  bool Varies(const std::string& axis) const;
};

// Confirmed needs a real effect: cut >= 0.5 with the lower end of its 95% interval >= 0.3. Ruled out: the upper
// end below 0.3. Anything else is inconclusive.
inline constexpr double kConfirmCut = 0.5;
inline constexpr double kConfirmCutLow = 0.3;
inline constexpr double kRuleOutCutHigh = 0.3;

inline constexpr int kBootstrapResamples = 1000;
inline constexpr uint64_t kBootstrapSeed = 0x5eed11;

// 95% percentile interval of the cut of B on A, by bootstrap over iterations (each point's value redrawn from
// its own standard error, at least the fits' noise floor) and over the series' points (each side's residuals from
// its least-squares line resampled with replacement at the same group counts, the same draws for A and B). Each
// resample's cut is 1 - slope_B / slope_A from least-squares slopes (0 where A does not grow in the resample). Fixed
// seed: the same input gives the same interval. {0, 0} with fewer than two shared group counts.
result::CutInterval BootstrapCut(const AnalysisInput& in, int a, int b, int resamples = kBootstrapResamples,
                                 uint64_t seed = kBootstrapSeed);

// The cut of B on A from an interleaved A/B's rounds (A B, B A, ...): the group counts every round measured,
// each side's growth over them from the rounds' means, the cut 1 - growth_B / growth_A, and its 95% interval by
// bootstrap over rounds (the same rounds drawn for A and B, so that what a round's moment added weighs on both)
// and over each launch's own standard error. nullopt with fewer than two rounds or two shared group counts.
struct PairedCut {
  int rounds = 0;
  double g_lo = 0, g_hi = 0;
  double growth_a_us = 0, growth_b_us = 0, cut = 0;
  result::CutInterval cut_ci95;
  std::vector<double> round_cuts;  // each round's own cut, as they ran
  bool a_grows = false;            // A's growth is beyond its rounds' noise and `relative_floor` of its level
  bool disagree = false;           // one round's cut would confirm (>= kConfirmCut), another's rule out
  double a_outside_cpus = -1, b_outside_cpus = -1;  // each side's outside load, mean over its launches; -1 unknown
  // Each side's outside load at g_hi less that at g_lo (0 where either is unknown).
  double a_load_growth = 0, b_load_growth = 0;
  // Load that could make the verdict, by result::kBusyOutsideCpus or more: more of it on A, or growing more with
  // the groups on A, can grow A (a cut that is the load's); the same on B can grow B (a cut the load hides). Outside
  // load slows a side's ops by a factor, so a level on one side scales its growth as a gradient adds to it.
  bool LoadCouldMakeACut() const;
  bool LoadCouldHideACut() const;
  bool LoadDiffers() const { return LoadCouldMakeACut() || LoadCouldHideACut(); }
};
std::optional<PairedCut> CutFromRounds(const std::vector<result::AbRound>& rounds, double relative_floor,
                                       int resamples = kBootstrapResamples, uint64_t seed = kBootstrapSeed);

// The axes on which two series differ.
std::vector<std::string> DifferingAxes(const SeriesData& a, const SeriesData& b);

// The B side as the user would write it: "--cpus 0-1", "all cores", "--graph".
std::string PartnerLabel(const std::string& axis, const std::string& value);

// Every A/B pair along `factor` that concerns series `a`: the pairs within its family (the series reachable
// from `a` by changing the factor's axes alone), each once, oriented with the cause on A, compared and judged.
// Pairs where `a` is the A side come first, then those where it is the B side (a partner that adds the cause),
// then the rest of the family; a record whose A side is not `a` names it in `a_side`. So every series of a
// family is judged on the same pairs: none is confirmed by one pair while another pair rules the cause out.
// `rule` is the rule asking: a pair the diagnosis credited to another rule (AnalysisInput::ab_credit) keeps its
// figures but says which cause it supports instead.
std::vector<result::AbRecord> EvaluateAbs(const AnalysisInput& in, int a, const AbFactor& factor,
                                          const std::string& rule);

// The status all A/Bs together give: confirmed when at least one supports and none rules out; ruled out when at
// least one rules out and none supports; otherwise (none, inconclusive, conflicting) suspected. `decisive` is
// the index of the A/B the status rests on (-1 without A/Bs).
struct AbJudgement {
  result::FindingStatus status = result::FindingStatus::kSuspected;
  int decisive = -1;
  bool conflicting = false;
};
AbJudgement JudgeAbs(const std::vector<result::AbRecord>& abs);

// One A/B confirms at most one cause. Given the findings of one pass, the pairs that more than one finding
// claims as supporting: each goes to the rule whose factor it varies, the strongest signature among them when
// several rules share that factor. Returns the pairs to hand to the losers (AnalysisInput::ab_credit).
std::map<std::pair<int, int>, AbCredit> CreditSharedAbs(
    const AnalysisInput& in, const std::vector<result::Finding>& findings,
    const std::function<const AbFactor*(const std::string&)>& factor_of);

}  // namespace diagnose
}  // namespace commbench
