// After every phase's judge and the rank suspects, before the host verdicts: each suspect's re-test
// (Profile::confirm, lib/accept/confirm.h). Each re-test round measured the suspect (its host beside a known-good
// partner, or its link) and a control pair of known-good hosts at the same moment; a repeat fails where the figure
// that named the suspect, over the control's, is beyond the line that named it. A suspect failing most repeats is
// confirmed, one failing some is intermittent (reason "intermittent", with the rounds), one failing at most one less
// than that is left out of the verdict with a note: a check that failed within its noise does not fail a cluster.
#include "lib/accept/confirm.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "lib/accept/judge/phases.h"

namespace commbench::accept::judge {
namespace {

// One group of a re-test point: its hosts and figures.
struct GroupFigures {
  int group = 0;
  std::vector<std::string> hosts;
  GroupSample sample;
};

std::vector<GroupFigures> GroupsOf(const result::PointResult& pt) {
  std::map<int, double> tails = GroupTails(pt), waits = GroupCpuWaits(pt);
  std::vector<GroupFigures> out;
  for (const result::GroupTime& g : pt.per_group) {
    out.push_back({g.group,
                   GroupHosts(pt, g),
                   {GroupBusbw(pt, g), g.p50_us, tails[g.group], pt.point.group_size, waits[g.group]}});
  }
  return out;
}

bool Has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// The group that re-tested `s`: its link's two ends, or the one with its host.
const GroupFigures* TestGroup(const std::vector<GroupFigures>& groups, const AcceptanceSuspect& s) {
  for (const GroupFigures& g : groups) {
    if (g.hosts.size() != 2 || !Has(g.hosts, s.host)) continue;
    if (s.what != SuspectWhat::kLink || Has(g.hosts, s.peer)) return &g;
  }
  return nullptr;
}

// The control: a pair of hosts no suspect names.
const GroupFigures* Control(const std::vector<GroupFigures>& groups, const std::set<std::string>& suspects) {
  for (const GroupFigures& g : groups) {
    if (g.hosts.size() == 2 && !suspects.count(g.hosts[0]) && !suspects.count(g.hosts[1])) return &g;
  }
  return nullptr;
}

// A rank's figure over its group peers' median (kRankTime: p50, kRankOwnTime: its fastest iteration).
double RankRatio(const result::PointResult& pt, int group, int rank, bool own) {
  double mine = kNaN;
  std::vector<double> peers;
  for (const result::RankTime& r : pt.per_rank) {
    if (r.group != group) continue;
    const double v = own ? r.time_us.min : r.time_us.p50;
    if ((r.process_rank >= 0 ? r.process_rank : r.rank) == rank) {
      mine = v;
    } else {
      peers.push_back(v);
    }
  }
  const double peer = Median(peers);
  return peer > 0 ? mine / peer : kNaN;
}

// The suspect's figure over the control's, as `b` reads it; NaN where the point cannot tell.
double Ratio(const SuspectBasis& b, const result::PointResult& pt, const AcceptanceSuspect& s, const GroupFigures& test,
             const GroupFigures* control) {
  if (b.figure == Figure::kRankTime || b.figure == Figure::kRankOwnTime) {
    return RankRatio(pt, test.group, s.rank, b.figure == Figure::kRankOwnTime);
  }
  if (!control) return kNaN;
  const GroupSample &t = test.sample, &c = control->sample;
  switch (b.figure) {
    case Figure::kBandwidth:
      return t.busbw > 0 ? c.busbw / t.busbw : kNaN;
    case Figure::kMedian:
      return c.p50_us > 0 ? t.p50_us / c.p50_us : kNaN;
    case Figure::kP99:
      return c.p50_us * c.tail > 0 ? t.p50_us * t.tail / (c.p50_us * c.tail) : kNaN;
    default:
      return kNaN;
  }
}

// What named `s`; a suspect that says nothing (older judges) is re-tested by bandwidth at each op's largest size.
std::vector<SuspectBasis> BasesOf(const Judging& j, const AcceptanceSuspect& s) {
  if (!s.found_by.empty()) return s.found_by;
  std::vector<SuspectBasis> out;
  for (Collective op : j.profile.ops) {
    out.push_back({Figure::kBandwidth, op, j.profile.sizes.empty() ? 0 : j.profile.sizes.back(),
                   1 / j.profile.pairs.pair_fraction});
  }
  return out;
}

// One re-test repeat: its round, the figure's ratio to the control's and the line it fails beyond (the basis
// closest to failing where several named the suspect).
struct Repeat {
  int round = 0;
  double ratio = kNaN, line = kNaN;
  bool failed() const { return ratio > line; }
};

std::vector<Repeat> RepeatsOf(const Judging& j, const Ran& ran, const AcceptanceSuspect& s,
                              const std::set<std::string>& suspect_hosts) {
  const std::vector<SuspectBasis> bases = BasesOf(j, s);
  std::vector<Repeat> out;
  for (const PhaseResult* pr : ran) {
    for (const result::PointResult& pt : pr->points) {
      const std::vector<GroupFigures> groups = GroupsOf(pt);
      const GroupFigures* test = TestGroup(groups, s);
      if (!test) continue;
      const GroupFigures* control = Control(groups, suspect_hosts);
      Repeat best;
      best.round = pr->round;
      for (const SuspectBasis& b : bases) {
        if (b.bytes != 0 && !Matches(pt, b.op, b.bytes)) continue;
        const double r = Ratio(b, pt, s, *test, control);
        if (!std::isfinite(r)) continue;
        if (!std::isfinite(best.ratio) || r / b.line > best.ratio / best.line) {
          best.ratio = r;
          best.line = b.line;
        }
      }
      if (std::isfinite(best.ratio)) out.push_back(best);
    }
  }
  return out;
}

std::string Who(const AcceptanceSuspect& s) {
  return s.what == SuspectWhat::kLink   ? "the link " + s.host + "-" + s.peer
         : s.what == SuspectWhat::kRank ? "rank " + std::to_string(s.rank) + " on " + s.host
                                        : "host " + s.host;
}

// "failed in 3 of 8 repeats (rounds 1, 3), median ratio 2.4x the control's, a repeat fails beyond 2x".
std::string Tally(const std::vector<Repeat>& repeats, bool control) {
  int failed = 0;
  std::set<int> rounds_failed, rounds;
  std::vector<double> ratios;
  for (const Repeat& r : repeats) {
    failed += r.failed();
    rounds.insert(r.round);
    if (r.failed()) rounds_failed.insert(r.round);
    ratios.push_back(r.ratio);
  }
  std::string which;
  for (int r : rounds_failed) which += (which.empty() ? "" : ", ") + std::to_string(r);
  return "failed in " + std::to_string(failed) + " of " + std::to_string(repeats.size()) + " repeats over " +
         std::to_string(rounds.size()) + " round(s)" + (which.empty() ? "" : " (round " + which + ")") +
         ", median ratio " + Num(Median(ratios)) + "x " + (control ? "the control pair's" : "its group peers'") +
         ", a repeat fails beyond " + Num(repeats.front().line) + "x";
}

// The target that re-tests `s` (targets.size() where none does).
size_t TargetIndex(const std::vector<RetestTarget>& targets, const AcceptanceSuspect& s,
                   const std::vector<std::string>& hosts) {
  for (size_t i = 0; i < targets.size(); ++i) {
    const RetestTarget& t = targets[i];
    const bool host = hosts[static_cast<size_t>(t.host)] == s.host;
    const bool peer =
        s.what == SuspectWhat::kLink ? t.peer >= 0 && hosts[static_cast<size_t>(t.peer)] == s.peer : t.peer < 0;
    if (host && peer) return i;
  }
  return targets.size();
}

}  // namespace

void ConfirmSuspects(Judging& j) {
  const ConfirmSpec& spec = j.profile.confirm;
  if (spec.rounds <= 0 || j.report.suspects.empty()) return;
  const RetestPlan plan = PlanRetestsFor(j.report.suspects, j.profile, j.hosts());
  const std::vector<RetestTarget> targets = RetestTargetsOf(j.report.suspects, j.hosts());
  const Ran ran = j.RanOf(Phase::kConfirm);
  std::string not_run = "no re-test ran";
  for (const PhaseResult& pr : j.in.phases) {
    if (pr.phase == Phase::kConfirm && !pr.ran && !pr.why_not.empty())
      not_run = "its re-test did not run: " + pr.why_not;
  }
  std::set<std::string> suspect_hosts;
  for (const AcceptanceSuspect& s : j.report.suspects) {
    suspect_hosts.insert(s.host);
    if (s.what == SuspectWhat::kLink) suspect_hosts.insert(s.peer);
  }
  std::vector<AcceptanceSuspect> kept;
  for (AcceptanceSuspect& s : j.report.suspects) {
    const size_t t = TargetIndex(targets, s, j.hosts());
    const std::vector<Repeat> repeats = RepeatsOf(j, ran, s, suspect_hosts);
    if (repeats.empty()) {
      const std::string why = t < plan.why_not.size() && !plan.why_not[t].empty() ? plan.why_not[t] : not_run;
      s.confirmation = "not re-tested (" + why + "): it fails unconfirmed";
      s.evidence.push_back(s.confirmation);
      kept.push_back(std::move(s));
      continue;
    }
    const bool control = s.what != SuspectWhat::kRank || s.found_by.empty() ||
                         std::any_of(s.found_by.begin(), s.found_by.end(), [](const SuspectBasis& b) {
                           return b.figure != Figure::kRankTime && b.figure != Figure::kRankOwnTime;
                         });
    const int n = static_cast<int>(repeats.size());
    const int failed =
        static_cast<int>(std::count_if(repeats.begin(), repeats.end(), [](const Repeat& r) { return r.failed(); }));
    const std::string tally = Tally(repeats, control);
    if (failed >= std::max(1.0, std::ceil(spec.confirmed_share * n))) {
      s.retest = Retest::kConfirmed;
      s.confirmation = "confirmed: re-tested beside a control pair of known-good hosts at the same moment, it " + tally;
    } else if (failed >= spec.intermittent_repeats) {
      s.retest = Retest::kIntermittent;
      s.reason = ReasonKind::kIntermittent;
      s.confirmation = "intermittent: re-tested beside a control pair of known-good hosts at the same moment, it " +
                       tally + ", and passed in the others";
    } else {
      j.report.notes.push_back(Who(s) + ": not confirmed, left out of the verdict: re-tested beside a control pair " +
                               "of known-good hosts at the same moment, it " + tally + " (named first by: " +
                               (s.evidence.empty() ? std::string("?") : s.evidence.front()) + ")");
      continue;
    }
    s.evidence.push_back(s.confirmation);
    kept.push_back(std::move(s));
  }
  j.report.suspects = std::move(kept);
}

}  // namespace commbench::accept::judge

namespace commbench::accept {

std::vector<RetestTarget> RetestTargetsOf(const std::vector<AcceptanceSuspect>& suspects,
                                          const std::vector<std::string>& hosts) {
  std::set<std::pair<int, int>> seen;
  for (const AcceptanceSuspect& s : suspects) {
    const auto h = std::find(hosts.begin(), hosts.end(), s.host);
    if (h == hosts.end()) continue;
    int peer = -1;
    if (s.what == SuspectWhat::kLink) {
      const auto p = std::find(hosts.begin(), hosts.end(), s.peer);
      if (p == hosts.end()) continue;
      peer = static_cast<int>(p - hosts.begin());
    }
    seen.insert({static_cast<int>(h - hosts.begin()), peer});
  }
  std::vector<RetestTarget> out;
  for (const auto& [host, peer] : seen) out.push_back({host, peer});
  return out;
}

RetestPlan PlanRetestsFor(const std::vector<AcceptanceSuspect>& suspects, const Profile& profile,
                          const std::vector<std::string>& hosts) {
  const int rounds = profile.confirm.rounds;
  return PlanRetests(static_cast<int>(hosts.size()), RetestTargetsOf(suspects, hosts), rounds, 4 * rounds,
                     profile.pairs.seed + 7919);
}

}  // namespace commbench::accept
