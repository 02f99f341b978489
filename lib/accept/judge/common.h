// What every phase's judgement reads the same way: numbers as the sentences print them, a point's groups and their
// figures (busbw from the group's own median, tail), and the limits a floor or ceiling sets. Pure functions.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lib/accept/localize.h"
#include "lib/accept/profile.h"
#include "lib/accept/verdict.h"
#include "lib/result/point_result.h"
#include "lib/stats/summary.h"

namespace commbench::accept::judge {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A suspect is "clearly localised" when it is at least this much slower than its peers (score) and the next one
// scores at most kClearGap of it.
inline constexpr double kClearScore = 0.3;
inline constexpr double kClearGap = 0.5;

// Numbers and sentences.
using ::commbench::Median;                 // lib/stats: NaN for no values
double Max(const std::vector<double>& v);  // of the finite values; NaN when none
double Min(const std::vector<double>& v);
std::string Num(double v);  // "%.3g", "n/a" when not finite
std::string Gbps(double v);
std::string Us(double v);
std::string Percent(double v);
std::string What(Phase ph, Collective op, uint64_t bytes);  // "pairs allreduce 4M"
std::string RepeatNote(size_t seen, int asked);             // "in 2 repeats", "in 1 of the 3 repeats ..."

Check MakeCheck(std::string name, std::string host, bool passed, double measured, double limit, std::string unit,
                std::string reason, ReasonKind kind);

// Points and their groups.
bool Matches(const result::PointResult& p, Collective op, uint64_t bytes);
std::string AddressOf(const result::RankTime& r);
std::vector<std::string> GroupHosts(const result::PointResult& p, const result::GroupTime& g);
// Each group's ranks (and below, each group's tail) from one pass over the point's ranks: a pass per group is
// quadratic in the hosts (4096 hosts' host phase: 4096 groups of 8192 ranks).
std::map<int, std::vector<const result::RankTime*>> RanksByGroup(const result::PointResult& p);
double GroupBusbw(const result::PointResult& p, const result::GroupTime& g);
std::map<int, double> GroupTails(const result::PointResult& p);
// Per group, the most any of its ranks waited for a CPU (runnable, on a run queue) per timed iteration, in us; NaN
// where none of its ranks recorded it.
std::map<int, double> GroupCpuWaits(const result::PointResult& p);
// One rank's wait for a CPU per timed iteration of a point of `iters` iterations, us; NaN where not recorded.
double RankCpuWaitUs(const result::RankTime& r, int64_t iters);
std::vector<double> RepeatBusbw(const result::PointResult& p);

// One group's figures in one point.
struct GroupSample {
  double busbw = kNaN, p50_us = kNaN, tail = kNaN;
  int group_size = 0;
  double cpu_wait_us = kNaN;  // GroupCpuWaits
};

// How much of a pair's time beyond the typical pair's its ranks spent waiting for a CPU beyond what the typical
// pair's ranks waited (each pair's wait: the median over its samples; the typical wait: the median over pairs).
// Where the ranks share their cores with each other or with other work, a small message's time is the
// scheduler's as much as the link's: a link whose excess that extra wait explains by half or more is not named.
struct CpuWaitShare {
  double extra_wait_us = kNaN, typical_wait_us = kNaN;
  bool Explains(double excess_us) const { return excess_us > 0 && extra_wait_us >= 0.5 * excess_us; }
};
CpuWaitShare CpuWaitOf(const std::map<Pair, std::vector<GroupSample>>& groups, const Pair& pair);
// The typical pair's wait alone (NaN where no rank recorded one).
double TypicalCpuWait(const std::map<Pair, std::vector<GroupSample>>& groups);
// One group's wait: the median over its samples that recorded one (NaN where none did).
double MedianCpuWait(const std::vector<GroupSample>& samples);
// One group's median time per op: the median of its samples' p50s.
double MedianP50(const std::vector<GroupSample>& samples);
// Whether a slow host's or rank's excess over its peers is time runnable without a CPU, which tells a CPU-starved
// host (a CPU quota, throttling, other work on it) from a slow network or memory: "<who> waited for a CPU ... per
// op, ... more than <against> ...: most of its excess is time without a CPU (...)" where that extra wait is half the
// excess or more, else "...: its excess is not time without a CPU". "" where the wait was not recorded (NaN).
std::string CpuWaitEvidence(const std::string& who, double wait_us, const std::string& against, double against_us,
                            double excess_us);
// The note for a pair not named because of its wait: "the pair A-B <figure>, but its ranks waited ... not named".
std::string CpuWaitNote(const std::vector<std::string>& hosts, const Pair& pair, const std::string& figure,
                        const CpuWaitShare& wait);

// The figures a check compares, with the limit's origin.
struct Limit {
  double value = kNaN;
  std::string what;     // "declared (source)", "0.5 x best_pair 2.1 GB/s"
  std::string missing;  // why there is no limit (a peak not measured)
};

// The peaks relative floors are fractions of, per (op, size).
struct Peaks {
  std::map<std::pair<Collective, uint64_t>, double> best_pair, best_host;
};

Limit FloorLimit(const Floor& f, Collective op, const Peaks& peaks);
bool Applies(const std::optional<Phase>& ph, const std::optional<Collective>& op, Phase phase, Collective o);
std::string FloorName(const Floor& f);

// Pair bandwidths of the pairs rounds among `rounds` (PairResults of verdict.h).
std::vector<PairResult> PairResultsOf(const std::vector<const PhaseResult*>& rounds, Collective op, uint64_t bytes,
                                      const std::vector<std::string>& hosts);

}  // namespace commbench::accept::judge
