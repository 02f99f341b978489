// The pairs phase: one group per host pair, in random re-pairing rounds. Per op and size: correctness, the pair
// floors (a pair fails only below the floor in every round it met) and the worst pair's ceilings; at each op's
// largest size, Localize's verdict: the pair matrix, each host's pair score, the slow hosts and links with
// evidence. Then whether enough rounds ran (fewer are enough once the suspect is clear).
#include <algorithm>
#include <cmath>
#include <set>

#include "lib/accept/judge/phases.h"
#include "lib/core/ranges.h"

namespace commbench::accept::judge {
namespace {

// Each pair's best figures over its rounds and repeats.
struct PairBests {
  std::map<Pair, double> busbw, p50, tail;
};

PairBests BestOf(const std::map<Pair, std::vector<GroupSample>>& groups) {
  PairBests out;
  for (const auto& [pr, samples] : groups) {
    std::vector<double> b, t, q;
    for (const GroupSample& s : samples) {
      b.push_back(s.busbw);
      t.push_back(s.p50_us);
      q.push_back(s.tail);
    }
    out.busbw[pr] = Max(b);
    out.p50[pr] = Min(t);
    out.tail[pr] = Min(q);
  }
  return out;
}

std::string PairName(const Judging& j, const Pair& pr) {
  return j.hosts()[static_cast<size_t>(pr.first)] + "-" + j.hosts()[static_cast<size_t>(pr.second)];
}

// One check per pairs floor: every pair's best against it, the failing ones named.
void PairFloorChecks(Judging& j, const std::string& what, Collective op, uint64_t bytes, const PairBests& best) {
  for (const Floor& f : j.profile.floors) {
    if (f.bytes != bytes || !Applies(f.phase, f.op, Phase::kPairs, op)) continue;
    Limit l = FloorLimit(f, op, j.peaks);
    const std::string name = what + " " + FloorName(f);
    if (!l.missing.empty()) {
      j.Add(name, "", false, kNaN, kNaN, "GB/s", l.missing, ReasonKind::kMissing);
      continue;
    }
    std::string failing;
    int failed = 0;
    double worst = kNaN;
    for (const auto& [pr, b] : best.busbw) {
      worst = std::isfinite(worst) ? std::min(worst, b) : b;
      if (!(b >= l.value)) {
        ++failed;
        failing +=
            (failing.empty() ? "" : ", ") + PairName(j, pr) + " " + Gbps(b) + " (" + Percent(b / l.value) + " of it)";
      }
    }
    j.Add(name, "", failed == 0, worst, l.value, "GB/s",
          failed == 0
              ? "all " + std::to_string(best.busbw.size()) + " pairs >= floor " + Gbps(l.value) + " (" + l.what +
                    "); the worst " + Gbps(worst)
              : std::to_string(failed) + " of " + std::to_string(best.busbw.size()) + " pairs below the floor " +
                    Gbps(l.value) + " (" + l.what + ") in every round they met: " + failing,
          ReasonKind::kThreshold);
  }
}

void PairCeilingChecks(Judging& j, const std::string& what, Collective op, uint64_t bytes, const PairBests& best) {
  for (const Ceiling& c : j.profile.ceilings) {
    if ((c.bytes && *c.bytes != bytes) || !Applies(c.phase, c.op, Phase::kPairs, op)) continue;
    std::vector<double> p50s, tails;
    for (const auto& [pr, v] : best.p50) p50s.push_back(v);
    for (const auto& [pr, v] : best.tail) tails.push_back(v);
    CeilingChecks(j, what + " worst pair", "", c, Max(p50s), p50s.size(), Max(tails), tails.size());
  }
}

// The highest busbw floor the pairs phase has at this op and size (value NaN when none can be computed).
Limit PairFloor(const Judging& j, Collective op, uint64_t bytes) {
  Limit highest;
  for (const Floor& f : j.profile.floors) {
    if (f.bytes != bytes || !Applies(f.phase, f.op, Phase::kPairs, op)) continue;
    Limit l = FloorLimit(f, op, j.peaks);
    if (std::isfinite(l.value) && !(highest.value >= l.value)) highest = l;
  }
  return highest;
}

// Pair -> its best busbw in each round it met: the repeats within a round are one chance to pass.
std::map<Pair, std::vector<double>> PairRoundBests(const Judging& j, const Ran& ran, Collective op, uint64_t bytes) {
  std::map<int, std::map<Pair, double>> by_round;
  for (const PhaseResult* pr : ran) {
    for (const result::PointResult& pt : pr->points) {
      if (!Matches(pt, op, bytes)) continue;
      for (const result::GroupTime& g : pt.per_group) {
        Pair pair;
        if (!j.PairOf(GroupHosts(pt, g), &pair)) continue;
        const double gbps = GroupBusbw(pt, g);
        if (!std::isfinite(gbps)) continue;
        double& best = by_round[pr->round].try_emplace(pair, gbps).first->second;
        best = std::max(best, gbps);
      }
    }
  }
  std::map<Pair, std::vector<double>> out;
  for (const auto& [round, pairs] : by_round) {
    for (const auto& [pair, best] : pairs) out[pair].push_back(best);
  }
  return out;
}

// The host-by-host heat map: each pair's median busbw, and the rounds it met and passed (its best repeat at or
// above the localisation's threshold and the highest pairs floor).
PairMatrix MatrixOf(const Judging& j, const Ran& ran, Collective op, uint64_t bytes,
                    const std::map<Pair, double>& median, const Localization& loc) {
  const auto& H = j.hosts();
  PairMatrix m;
  m.op = op;
  m.bytes = bytes;
  m.hosts = H;
  m.gbps.assign(H.size(), std::vector<double>(H.size(), kNaN));
  for (const auto& [pr, g] : median) {
    m.gbps[static_cast<size_t>(pr.first)][static_cast<size_t>(pr.second)] = g;
    m.gbps[static_cast<size_t>(pr.second)][static_cast<size_t>(pr.first)] = g;
  }
  m.typical_gbps = loc.typical_gbps;
  m.threshold_gbps = loc.threshold_gbps;
  const Limit floor = PairFloor(j, op, bytes);
  m.floor_gbps = floor.value;
  m.floor = floor.what;
  const double line = std::isfinite(floor.value) ? std::max(loc.threshold_gbps, floor.value) : loc.threshold_gbps;
  m.rounds.assign(H.size(), std::vector<int>(H.size(), 0));
  m.rounds_passed = m.rounds;
  for (const auto& [pr, bests] : PairRoundBests(j, ran, op, bytes)) {
    const int passed = static_cast<int>(std::count_if(bests.begin(), bests.end(), [&](double b) { return b >= line; }));
    for (auto [a, b] : {pr, Pair{pr.second, pr.first}}) {
      m.rounds[static_cast<size_t>(a)][static_cast<size_t>(b)] = static_cast<int>(bests.size());
      m.rounds_passed[static_cast<size_t>(a)][static_cast<size_t>(b)] = passed;
    }
  }
  return m;
}

// Per host: the partners it passed with (a suspect host or one that met no partner fails); kept for its verdict.
void PairScoreChecks(Judging& j, const std::string& what, const Localization& loc, int rounds_ran) {
  std::set<int> suspect_hosts;
  for (const Suspect& x : loc.suspects) {
    if (x.kind == SuspectKind::kHost) suspect_hosts.insert(x.host);
  }
  for (const HostScore& hs : loc.hosts) {
    const std::string& host = j.hosts()[static_cast<size_t>(hs.host)];
    j.pair_score[host] = {hs.partners, hs.passed, hs.median_gbps};
    const bool ok = hs.partners > 0 && !suspect_hosts.count(hs.host);
    j.Add(what + " pair score", host, ok, hs.passed, hs.partners, "partners",
          hs.partners == 0
              ? host + ": met no partner (fails closed)"
              : host + ": passed with " + std::to_string(hs.passed) + " of " + std::to_string(hs.partners) +
                    " partners over " + std::to_string(rounds_ran) + " round(s); median " + Gbps(hs.median_gbps) +
                    " against a typical pair's " + Gbps(loc.typical_gbps),
          ReasonKind::kOutlier);
  }
}

// "its pair busbw X against the floor Y (declared ..., 25% of it)", every pairs floor at this size.
std::string AgainstFloor(const Judging& j, Collective op, uint64_t bytes, double gbps) {
  std::string e = "its pair busbw " + Gbps(gbps);
  bool any = false;
  for (const Floor& f : j.profile.floors) {
    if (f.bytes != bytes || !Applies(f.phase, f.op, Phase::kPairs, op)) continue;
    Limit l = FloorLimit(f, op, j.peaks);
    if (!std::isfinite(l.value)) continue;
    e += std::string(any ? "," : " against") + " the floor " + Gbps(l.value) + " (" + l.what + ", " +
         Percent(gbps / l.value) + " of it)";
    any = true;
  }
  return any ? e : e + " (no pairs floor at this size)";
}

// A slow host: the partners it failed and passed with, each pair's median against the typical pair.
AcceptanceSuspect HostSuspect(const Judging& j, Collective op, uint64_t bytes, const Suspect& x,
                              const Localization& loc, const std::map<Pair, double>& median) {
  const auto& H = j.hosts();
  AcceptanceSuspect s;
  s.score = x.severity;
  s.what = SuspectWhat::kHost;
  s.host = H[static_cast<size_t>(x.host)];
  s.found_by.push_back({Figure::kBandwidth, op, bytes, 1 / j.profile.pairs.pair_fraction});
  std::string failed, passed;
  for (const auto& [pr, g] : median) {
    if (pr.first != x.host && pr.second != x.host) continue;
    const std::string& other = H[static_cast<size_t>(pr.first == x.host ? pr.second : pr.first)];
    std::string item = other + " " + Gbps(g) + " (" + Percent(g / loc.typical_gbps) + " of typical)";
    if (g < loc.threshold_gbps) {
      failed += (failed.empty() ? "" : ", ") + item;
    } else {
      passed += (passed.empty() ? "" : ", ") + item;
    }
  }
  s.evidence.push_back("pairs phase (" + std::string(Name(op)) + " " + FormatBytes(bytes) + "): failed with " +
                       std::to_string(x.failed_with.size()) + " of its " +
                       std::to_string(loc.hosts[static_cast<size_t>(x.host)].partners) + " partners: " + failed +
                       (passed.empty() ? "" : "; passed with " + passed) + "; threshold " + Gbps(loc.threshold_gbps) +
                       ", typical pair " + Gbps(loc.typical_gbps));
  s.evidence.push_back(AgainstFloor(j, op, bytes, x.gbps));
  return s;
}

// A slow link: the pair's busbw against the typical pair while each end passed with others.
AcceptanceSuspect LinkSuspect(const Judging& j, Collective op, uint64_t bytes, const Suspect& x,
                              const Localization& loc) {
  const auto& H = j.hosts();
  AcceptanceSuspect s;
  s.score = x.severity;
  s.what = SuspectWhat::kLink;
  s.reason = ReasonKind::kLink;
  s.host = H[static_cast<size_t>(x.link.first)];
  s.peer = H[static_cast<size_t>(x.link.second)];
  s.found_by.push_back({Figure::kBandwidth, op, bytes, 1 / j.profile.pairs.pair_fraction});
  const HostScore& a = loc.hosts[static_cast<size_t>(x.link.first)];
  const HostScore& b = loc.hosts[static_cast<size_t>(x.link.second)];
  s.evidence.push_back("pairs phase (" + std::string(Name(op)) + " " + FormatBytes(bytes) + "): the pair " + s.host +
                       "-" + s.peer + " moved " + Gbps(x.gbps) + ", " + Percent(x.gbps / loc.typical_gbps) +
                       " of a typical pair's " + Gbps(loc.typical_gbps) + ", while " + s.host + " passed with " +
                       std::to_string(a.passed) + " of " + std::to_string(a.partners) + " partners and " + s.peer +
                       " with " + std::to_string(b.passed) + " of " + std::to_string(b.partners));
  s.evidence.push_back(AgainstFloor(j, op, bytes, x.gbps));
  return s;
}

// A slow pair whose ranks' extra wait for a CPU explains half or more of its extra time per op (CpuWaitOf): a note
// that names the wait, not a link suspect.
bool SchedulerSlowedLink(Judging& j, Collective op, uint64_t bytes, const Suspect& x, const Localization& loc,
                         const std::map<Pair, std::vector<GroupSample>>& groups) {
  const auto it = groups.find(x.link);
  if (it == groups.end() || !(loc.typical_gbps > 0)) return false;
  const double t = MedianP50(it->second);
  const double excess = t * (1 - x.gbps / loc.typical_gbps);  // time per op scales as 1 / busbw at one size
  const CpuWaitShare wait = CpuWaitOf(groups, x.link);
  if (!std::isfinite(t) || !wait.Explains(excess)) return false;
  const std::string moved = "moved " + Gbps(x.gbps) + ", " + Percent(x.gbps / loc.typical_gbps) +
                            " of a typical pair's " + Gbps(loc.typical_gbps);
  j.report.notes.push_back("pairs phase (" + std::string(Name(op)) + " " + FormatBytes(bytes) +
                           "): " + CpuWaitNote(j.hosts(), x.link, moved, wait));
  return true;
}

// Localisation at an op's largest size (bandwidth-bound, where a slow host or link shows most): the matrix, the
// pair scores and the suspects. Sets *clearly when it named suspects: whether the first stands out.
void LocalizeAt(Judging& j, const Ran& ran, const std::string& what, Collective op, uint64_t bytes,
                const std::map<Pair, std::vector<GroupSample>>& groups, int rounds_ran, bool* clearly) {
  LocalizeOptions lo;
  lo.fraction_of_typical = j.profile.pairs.pair_fraction;
  const Localization loc = Localize(static_cast<int>(j.hosts().size()), PairResultsOf(ran, op, bytes, j.hosts()), lo);
  std::map<Pair, double> median;
  for (const auto& [pr, samples] : groups) {
    std::vector<double> b;
    for (const GroupSample& s : samples) b.push_back(s.busbw);
    median[pr] = Median(b);
  }
  j.report.pair_matrices.push_back(MatrixOf(j, ran, op, bytes, median, loc));
  PairScoreChecks(j, what, loc, rounds_ran);
  for (const Suspect& x : loc.suspects) {
    if (x.kind == SuspectKind::kHost) {
      j.AddSuspect(HostSuspect(j, op, bytes, x, loc, median));
    } else if (!SchedulerSlowedLink(j, op, bytes, x, loc, groups)) {
      j.AddSuspect(LinkSuspect(j, op, bytes, x, loc));
    }
  }
  if (!loc.suspects.empty()) {
    *clearly = loc.suspects.size() == 1 || loc.suspects[1].severity <= kClearGap * loc.suspects[0].severity;
  }
}

}  // namespace

void JudgePairs(Judging& j, const Ran& ran) {
  CorrectnessChecks(j, Phase::kPairs, ran);
  std::set<int> round_numbers;
  for (const PhaseResult* pr : ran) round_numbers.insert(pr->round);
  const int rounds_ran = static_cast<int>(round_numbers.size());
  bool localised_clearly = false;
  for (Collective op : j.profile.ops) {
    for (uint64_t bytes : j.profile.sizes) {
      const std::string what = What(Phase::kPairs, op, bytes);
      const auto groups = j.PairGroups(op, bytes);
      if (groups.empty()) {
        j.Add(what + " pairs", "", false, kNaN, kNaN, "", "no host pair was measured at " + what + " (fails closed)",
              ReasonKind::kMissing);
        continue;
      }
      const PairBests best = BestOf(groups);
      PairFloorChecks(j, what, op, bytes, best);
      PairCeilingChecks(j, what, op, bytes, best);
      if (bytes == j.profile.sizes.back()) LocalizeAt(j, ran, what, op, bytes, groups, rounds_ran, &localised_clearly);
    }
  }
  PairLatencySuspects(j);
  PairSpellSuspects(j, ran);
  const int want = j.profile.pairs.rounds;
  const bool ok = rounds_ran >= want || localised_clearly;
  j.Add("pairs rounds", "", ok, rounds_ran, want, "rounds",
        std::to_string(rounds_ran) + " of the " + std::to_string(want) + " rounds ran" +
            (rounds_ran >= want ? ""
             : ok               ? ": stopped early, the suspect was already clear"
                                : ": too few to localise (fails closed)"),
        ReasonKind::kMissing);
}

}  // namespace commbench::accept::judge
