// The judgement in progress, which every phase's judge reads and adds to: the input, the report being built
// (checks, suspects, matrices, notes), the peaks relative floors are fractions of, and what one phase leaves for
// the host verdicts (pair scores, host busbw, per-rank records). Also the checks several phases write alike:
// correctness, a floor, the ceilings.
#pragma once

#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "lib/accept/judge/common.h"

namespace commbench::accept::judge {

// Per rank (host, rank): how often it was much slower than its group peers, and the arrival skew it showed.
// Its own time is its fastest iteration (time_us.min): a rank slow by itself never has a fast one, while the peers
// that wait for it had some. The last of its group: the highest own time of the group.
struct RankRecord {
  int points = 0, slow_points = 0, last_arrivals = 0;
  int pid = 0;                 // its process id (RankTime::pid), where recorded
  std::vector<double> ratios;  // its p50 / the median of its peers', where it was slow
  double max_skew_us = 0;
  int own_points = 0, own_last = 0;          // points with own times, and those where it was the last of its group
  double chance = 0;                         // expected own_last by chance: the sum of 1 / group size
  std::vector<double> own_us, peers_own_us;  // where it was the last: its own time, its peers' (median)
  // Where it was slow and its group's ranks recorded their wait for a CPU: its wait per op, its peers' (median),
  // and its p50's excess over its peers' (median).
  std::vector<double> wait_us, peers_wait_us, excess_us;
};

// The phases that ran of one kind (pairs: one per round; bisection: one per level).
using Ran = std::vector<const PhaseResult*>;

struct Judging {
  explicit Judging(const AcceptanceInput& input);

  const AcceptanceInput& in;
  const Profile& profile;
  std::map<std::string, int> host_index;  // expected host -> its index
  Peaks peaks;
  AcceptanceReport report;
  std::map<std::string, std::tuple<int, int, double>> pair_score;  // host: partners, passed, median GB/s
  std::map<std::string, double> host_busbw;                        // host: its best busbw in the host phase
  std::map<std::string, std::vector<std::pair<int, RankRecord>>> rank_records;  // host: (rank, record)

  const std::vector<std::string>& hosts() const { return in.expected_hosts; }

  void Add(std::string name, std::string host, bool passed, double measured, double limit, std::string unit,
           std::string reason, ReasonKind kind);
  // One entry per host (or link): a rank suspect absorbs its host's, a host (or rank) suspect the links that
  // touch it, and one seen by several phases keeps its highest score and all its evidence.
  void AddSuspect(AcceptanceSuspect s);

  Ran RanOf(Phase ph) const;
  std::vector<const result::PointResult*> Points(const Ran& ran, Collective op, uint64_t bytes) const;
  // Single-host groups of the host phase: host -> its group's figures per point.
  std::map<std::string, std::vector<GroupSample>> HostGroups(Collective op, uint64_t bytes) const;
  // Host pairs of the pairs phase: pair -> its group's figures over the rounds.
  std::map<Pair, std::vector<GroupSample>> PairGroups(Collective op, uint64_t bytes) const;
  // The host pair a group of two expected hosts ran on, lower index first; false for any other group.
  bool PairOf(const std::vector<std::string>& group_hosts, Pair* pair) const;
  // The best pair and best host of every op and size, for the relative floors.
  void CollectPeaks();
};

// "<what> correct" (or "<what>": no point, fails closed) for one op and size; false when no point was measured.
bool CorrectnessCheck(Judging& j, Phase ph, Collective op, uint64_t bytes,
                      const std::vector<const result::PointResult*>& pts);
// CorrectnessCheck at every op and size of the profile.
void CorrectnessChecks(Judging& j, Phase ph, const Ran& ran);
// "<what> busbw floor": the best repeat against the floor (host: a host's own check).
void FloorCheck(Judging& j, const std::string& what, const std::string& host, const Floor& f, Collective op,
                double measured, size_t repeats);
// "<what> latency p50" and "<what> p99/p50", where the ceiling sets them.
void CeilingChecks(Judging& j, const std::string& what, const std::string& host, const Ceiling& c, double p50,
                   size_t p50_n, double tail, size_t tail_n);

}  // namespace commbench::accept::judge
