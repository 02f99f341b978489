// Across phases: a rank much slower than its group peers (slow_rank_factor x their median) at half or more of the
// points it ran, over every phase that ran, is a rank suspect, with its arrival skew. A straggler too: the last of
// its group by its own time (its fastest iteration) far more often than chance, by more than the profile's
// straggler factor and excess; its host fails with reason "straggler". Ranks are named by their process rank: each
// phase orders ranks its own way, a slow process is the same one in all of them.
#include <algorithm>
#include <cmath>

#include "lib/accept/judge/phases.h"

namespace commbench::accept::judge {
namespace {

using RankKey = std::pair<std::string, int>;  // host, process rank

RankKey KeyOf(const result::RankTime& r) { return {AddressOf(r), r.process_rank >= 0 ? r.process_rank : r.rank}; }

// The last of one group by own time (time_us.min): counted for every rank, its figures kept for the last one.
void RecordOwnTimes(const std::vector<const result::RankTime*>& ranks, std::map<RankKey, RankRecord>* records) {
  const result::RankTime* last = nullptr;
  for (const result::RankTime* r : ranks) {
    if (!(r->time_us.min > 0)) return;  // a file without own times
    if (!last || r->time_us.min > last->time_us.min) last = r;
  }
  std::vector<double> peers;
  for (const result::RankTime* r : ranks) {
    RankRecord& rec = (*records)[KeyOf(*r)];
    ++rec.own_points;
    rec.chance += 1.0 / static_cast<double>(ranks.size());
    if (r != last) peers.push_back(r->time_us.min);
  }
  RankRecord& rec = (*records)[KeyOf(*last)];
  ++rec.own_last;
  rec.own_us.push_back(last->time_us.min);
  rec.peers_own_us.push_back(Median(peers));
}

// The median of `sorted` with one `x` taken out: its peers' median without copying and sorting them for each rank
// (a group of 8192 ranks, 4096 hosts' cluster phase, took minutes that way).
double MedianWithout(const std::vector<double>& sorted, double x) {
  if (sorted.size() < 2) return kNaN;
  const size_t m = sorted.size() - 1;
  const size_t k = std::min(m, static_cast<size_t>(std::lower_bound(sorted.begin(), sorted.end(), x) - sorted.begin()));
  auto at = [&](size_t i) { return sorted[i < k ? i : i + 1]; };
  return m % 2 ? at(m / 2) : 0.5 * (at(m / 2 - 1) + at(m / 2));
}

// Every rank of every group of one point against its group peers.
void RecordPoint(const Judging& j, const result::PointResult& pt, std::map<RankKey, RankRecord>* records) {
  const auto by_group = RanksByGroup(pt);
  for (const result::GroupTime& g : pt.per_group) {
    const auto it = by_group.find(g.group);
    if (it == by_group.end() || it->second.size() < 2) continue;
    const std::vector<const result::RankTime*>& ranks = it->second;
    RecordOwnTimes(ranks, records);
    std::vector<double> sorted, waits;
    for (const result::RankTime* r : ranks) {
      sorted.push_back(r->time_us.p50);
      const double wait = RankCpuWaitUs(*r, pt.iters);
      if (std::isfinite(wait)) waits.push_back(wait);
    }
    std::sort(sorted.begin(), sorted.end());
    if (waits.size() != ranks.size()) waits.clear();  // a wait compares only against every peer's
    std::sort(waits.begin(), waits.end());
    for (const result::RankTime* r : ranks) {
      // By process rank (launch rank in older files).
      RankRecord& rec = (*records)[KeyOf(*r)];
      ++rec.points;
      if (r->pid > 0) rec.pid = r->pid;
      const double peer = MedianWithout(sorted, r->time_us.p50);
      if (peer > 0 && r->time_us.p50 >= j.profile.pairs.slow_rank_factor * peer) {
        ++rec.slow_points;
        rec.ratios.push_back(r->time_us.p50 / peer);
        if (!waits.empty()) {
          const double wait = RankCpuWaitUs(*r, pt.iters);
          rec.wait_us.push_back(wait);
          rec.peers_wait_us.push_back(MedianWithout(waits, wait));
          rec.excess_us.push_back(r->time_us.p50 - peer);
        }
      }
      if (pt.skew.slowest_rank == r->rank) {
        ++rec.last_arrivals;
        rec.max_skew_us = std::max(rec.max_skew_us, pt.skew.start_skew_us);
      }
    }
  }
}

// " (pid 4242)", or "" where not recorded.
std::string Pid(const RankRecord& rec) { return rec.pid > 0 ? " (pid " + std::to_string(rec.pid) + ")" : ""; }

AcceptanceSuspect RankSuspect(const Profile& p, const RankKey& key, const RankRecord& rec) {
  const double ratio = Median(rec.ratios);
  AcceptanceSuspect s;
  s.what = SuspectWhat::kRank;
  s.host = key.first;
  s.rank = key.second;
  s.score = std::clamp(1 - 1 / ratio, 0.0, 1.0);
  s.points = rec.slow_points;
  s.pid = rec.pid;
  s.found_by.push_back({Figure::kRankTime, Collective::kAllreduce, 0, p.pairs.slow_rank_factor});
  s.evidence.push_back("rank " + std::to_string(key.second) + " on " + key.first + Pid(rec) + ": its median time was " +
                       Num(ratio) + "x its group peers' (median) at " + std::to_string(rec.slow_points) + " of the " +
                       std::to_string(rec.points) + " points it ran");
  const std::string cpu = CpuWaitEvidence("it", Median(rec.wait_us), "its group peers' (median)",
                                          Median(rec.peers_wait_us), Median(rec.excess_us));
  if (!cpu.empty()) s.evidence.push_back(cpu);
  if (rec.last_arrivals > 0) {
    s.evidence.push_back("arrival skew: the slowest rank at " + std::to_string(rec.last_arrivals) +
                         " point(s), start skew up to " + Us(rec.max_skew_us));
  }
  return s;
}

// Per point where it was the last: its own time over its peers' (median), and by how much.
struct Lateness {
  double ratio = 0, excess_us = 0;
};

Lateness LatenessOf(const RankRecord& rec) {
  std::vector<double> ratios, excess;
  for (size_t i = 0; i < rec.own_us.size(); ++i) {
    if (!(rec.peers_own_us[i] > 0)) continue;
    ratios.push_back(rec.own_us[i] / rec.peers_own_us[i]);
    excess.push_back(rec.own_us[i] - rec.peers_own_us[i]);
  }
  return {Median(ratios), Median(excess)};
}

// Last of its group at `share` of its points or more; where last, its own time (medians over those points)
// factor x and excess_us over its peers'.
bool Straggles(const StragglerSpec& spec, const RankRecord& rec) {
  if (rec.own_last < 2 || rec.own_last < spec.share * rec.own_points) return false;
  const Lateness l = LatenessOf(rec);
  return l.ratio >= spec.factor && l.excess_us >= spec.excess_us;
}

AcceptanceSuspect StragglerSuspect(const StragglerSpec& spec, const RankKey& key, const RankRecord& rec) {
  const Lateness l = LatenessOf(rec);
  AcceptanceSuspect s;
  s.what = SuspectWhat::kRank;
  s.reason = ReasonKind::kStraggler;
  s.host = key.first;
  s.rank = key.second;
  s.score = std::clamp(1 - 1 / l.ratio, 0.0, 1.0);
  s.points = rec.own_last;
  s.pid = rec.pid;
  s.found_by.push_back({Figure::kRankOwnTime, Collective::kAllreduce, 0, spec.factor});
  s.evidence.push_back("straggler: rank " + std::to_string(key.second) + " on " + key.first + Pid(rec) +
                       " was the last of its group at " + std::to_string(rec.own_last) + " of the " +
                       std::to_string(rec.own_points) + " points it ran (chance: " + Num(rec.chance) +
                       "); its fastest iteration " + Num(l.ratio) + "x its peers' and " + Us(l.excess_us) +
                       " longer (median over those points; the profile allows " + Num(spec.factor) + "x and " +
                       Us(spec.excess_us) + ")");
  return s;
}

}  // namespace

void RankSuspects(Judging& j) {
  std::map<RankKey, RankRecord> records;
  for (const PhaseResult& pr : j.in.phases) {
    if (!pr.ran || !j.profile.Runs(pr.phase)) continue;
    for (const result::PointResult& pt : pr.points) RecordPoint(j, pt, &records);
  }
  for (const auto& [key, rec] : records) {
    j.rank_records[key.first].push_back({key.second, rec});
    if (rec.slow_points > 0 && 2 * rec.slow_points >= rec.points) j.AddSuspect(RankSuspect(j.profile, key, rec));
    if (Straggles(j.profile.straggler, rec)) j.AddSuspect(StragglerSuspect(j.profile.straggler, key, rec));
  }
}

}  // namespace commbench::accept::judge
