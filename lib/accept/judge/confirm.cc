// After every phase's judge and the rank suspects, before the host verdicts: each suspect's re-test
// (Profile::confirm, lib/accept/confirm.h). Each re-test round measured the suspect (its host beside a known-good
// partner, or its link) and a control pair of known-good hosts at the same moment; a repeat fails where the figure
// that named the suspect, over the control's, is beyond the line that named it. Each figure that named it is judged
// on its own repeats, and the one that says most decides: failing most of them confirms, failing some is
// intermittent (reason "intermittent", with the rounds), less is left out of the verdict with a note: a check that
// failed within its noise does not fail a cluster. A link's ends are re-tested beside known-good partners too: a
// link whose one end alone fails there becomes that host's suspect (the fault follows the host).
#include "lib/accept/confirm.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "lib/accept/judge/phases.h"
#include "lib/core/ranges.h"

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

// The group that re-tested `s`: its link's two ends, or its host beside a known-good partner (a host that is also
// the end of a suspect link meets that link's other end in other rounds: those are the link's repeats).
const GroupFigures* TestGroup(const std::vector<GroupFigures>& groups, const AcceptanceSuspect& s,
                              const std::set<std::string>& suspect_hosts) {
  for (const GroupFigures& g : groups) {
    if (g.hosts.size() != 2 || !Has(g.hosts, s.host)) continue;
    if (s.what == SuspectWhat::kLink) {
      if (Has(g.hosts, s.peer)) return &g;
      continue;
    }
    const std::string& partner = g.hosts[0] == s.host ? g.hosts[1] : g.hosts[0];
    if (!suspect_hosts.count(partner)) return &g;
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

// One re-test repeat: its round, the figure's ratio to the control's and the line it fails beyond.
struct Repeat {
  int round = 0;
  double ratio = kNaN, line = kNaN;
  bool failed() const { return ratio > line; }
};

// Per basis that named `s` (BasesOf, in that order), its re-test repeats: the points of its op and size. Each basis
// is judged on its own: a host named by its 4K latency and its 4M bandwidth, slow only in latency, must not have
// its failing 4K repeats diluted by passing 4M ones.
std::vector<std::vector<Repeat>> RepeatsByBasis(const std::vector<SuspectBasis>& bases, const Ran& ran,
                                                const AcceptanceSuspect& s,
                                                const std::set<std::string>& suspect_hosts) {
  std::vector<std::vector<Repeat>> out(bases.size());
  for (const PhaseResult* pr : ran) {
    for (const result::PointResult& pt : pr->points) {
      const std::vector<GroupFigures> groups = GroupsOf(pt);
      const GroupFigures* test = TestGroup(groups, s, suspect_hosts);
      if (!test) continue;
      const GroupFigures* control = Control(groups, suspect_hosts);
      for (size_t i = 0; i < bases.size(); ++i) {
        const SuspectBasis& b = bases[i];
        if (b.bytes != 0 && !Matches(pt, b.op, b.bytes)) continue;
        const double r = Ratio(b, pt, s, *test, control);
        if (std::isfinite(r)) out[i].push_back({pr->round, r, b.line});
      }
    }
  }
  return out;
}

int FailedIn(const std::vector<Repeat>& repeats) {
  return static_cast<int>(std::count_if(repeats.begin(), repeats.end(), [](const Repeat& r) { return r.failed(); }));
}

// A basis's re-test outcome: confirmed (at least `confirmed_share` of its repeats failed), intermittent (at least
// `intermittent_repeats`), or neither (kNotRun: not confirmed).
Retest OutcomeOf(const std::vector<Repeat>& repeats, const ConfirmSpec& spec) {
  const int failed = FailedIn(repeats);
  if (repeats.empty()) return Retest::kNotRun;
  if (failed >= std::max(1.0, std::ceil(spec.confirmed_share * static_cast<double>(repeats.size()))))
    return Retest::kConfirmed;
  return failed >= spec.intermittent_repeats ? Retest::kIntermittent : Retest::kNotRun;
}

int Rank(Retest r) { return r == Retest::kConfirmed ? 2 : r == Retest::kIntermittent ? 1 : 0; }

// The basis whose re-test says the most: confirmed over intermittent over neither, then the larger share failed.
// bases.size() where no basis has a repeat.
size_t DecidingBasis(const std::vector<std::vector<Repeat>>& by_basis, const ConfirmSpec& spec) {
  size_t best = by_basis.size();
  auto share = [&](size_t i) { return static_cast<double>(FailedIn(by_basis[i])) / by_basis[i].size(); };
  for (size_t i = 0; i < by_basis.size(); ++i) {
    if (by_basis[i].empty()) continue;
    if (best == by_basis.size()) {
      best = i;
      continue;
    }
    const int ri = Rank(OutcomeOf(by_basis[i], spec)), rb = Rank(OutcomeOf(by_basis[best], spec));
    if (ri > rb || (ri == rb && share(i) > share(best))) best = i;
  }
  return best;
}

std::string FigureName(const SuspectBasis& b) {
  const std::string at = b.bytes == 0 ? "" : " (" + std::string(Name(b.op)) + " " + FormatBytes(b.bytes) + ")";
  switch (b.figure) {
    case Figure::kBandwidth:
      return "bus bandwidth" + at;
    case Figure::kMedian:
      return "median latency" + at;
    case Figure::kP99:
      return "p99 latency" + at;
    case Figure::kRankTime:
      return "time per op against its group peers";
    case Figure::kRankOwnTime:
      return "fastest iteration against its group peers";
  }
  return "figure";
}

std::string Who(const AcceptanceSuspect& s) {
  return s.what == SuspectWhat::kLink   ? "the link " + s.host + "-" + s.peer
         : s.what == SuspectWhat::kRank ? "rank " + std::to_string(s.rank) + " on " + s.host
                                        : "host " + s.host;
}

// "by its median latency (allreduce 4K) it failed in 3 of 8 repeats over 4 round(s) (round 1, 3), median ratio
// 2.4x the control pair's, a repeat fails beyond 2x".
std::string Tally(const SuspectBasis& basis, const std::vector<Repeat>& repeats, bool control) {
  std::set<int> rounds_failed, rounds;
  std::vector<double> ratios;
  for (const Repeat& r : repeats) {
    rounds.insert(r.round);
    if (r.failed()) rounds_failed.insert(r.round);
    ratios.push_back(r.ratio);
  }
  std::string which;
  for (int r : rounds_failed) which += (which.empty() ? "" : ", ") + std::to_string(r);
  return "by its " + FigureName(basis) + " it failed in " + std::to_string(FailedIn(repeats)) + " of " +
         std::to_string(repeats.size()) + " repeats over " + std::to_string(rounds.size()) + " round(s)" +
         (which.empty() ? "" : " (round " + which + ")") + ", median ratio " + Num(Median(ratios)) + "x " +
         (control ? "the control pair's" : "its group peers'") + ", a repeat fails beyond " + Num(basis.line) + "x";
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

// A link's ends, each re-tested beside known-good partners (RetestTargetsOf adds them): where one fails there too
// and the other passes, the fault follows that host. A host slow in spells meets its slow moments with one partner
// of the pairs phase and is named as that link first; a slow link leaves both ends good with other partners.
struct EndRetest {
  std::string host;
  Retest outcome = Retest::kNotRun;
  bool ran = false;
  int failed = 0;  // repeats failed by the deciding figure
  std::string tally;
};

EndRetest RetestOfEnd(const std::string& end, const std::vector<SuspectBasis>& bases, const Ran& ran,
                      const std::set<std::string>& suspect_hosts, const ConfirmSpec& spec) {
  AcceptanceSuspect as_host;
  as_host.host = end;
  const std::vector<std::vector<Repeat>> by_basis = RepeatsByBasis(bases, ran, as_host, suspect_hosts);
  const size_t deciding = DecidingBasis(by_basis, spec);
  EndRetest out;
  out.host = end;
  if (deciding == bases.size()) return out;
  out.ran = true;
  out.outcome = OutcomeOf(by_basis[deciding], spec);
  out.failed = FailedIn(by_basis[deciding]);
  out.tally = Tally(bases[deciding], by_basis[deciding], true);
  return out;
}

// A confirmed (or intermittent) link whose one end alone fails beside known-good partners becomes that host's
// suspect; otherwise the link stands, with what its ends' re-tests said. One end that failed a repeat there, too few
// to count, while the other failed none, is undecided: the link and its ends are re-tested once more (a host slow in
// spells meets them in some launches only).
void FollowTheFaultToAnEnd(AcceptanceSuspect& s, const std::vector<SuspectBasis>& bases, const Ran& ran,
                           const std::set<std::string>& suspect_hosts, const ConfirmSpec& spec,
                           std::vector<AcceptanceSuspect>* undecided) {
  const EndRetest a = RetestOfEnd(s.host, bases, ran, suspect_hosts, spec);
  const EndRetest b = RetestOfEnd(s.peer, bases, ran, suspect_hosts, spec);
  if (!a.ran || !b.ran) return;
  const bool a_fails = a.outcome != Retest::kNotRun, b_fails = b.outcome != Retest::kNotRun;
  if (!a_fails && !b_fails && (a.failed > 0) != (b.failed > 0)) undecided->push_back(s);
  if (a_fails == b_fails) {
    s.evidence.push_back(std::string(a_fails ? "both ends failed" : "both ends passed") +
                         " beside known-good partners too (" + a.host + " " + a.tally + "; " + b.host + " " + b.tally +
                         ")" + (a_fails ? "" : ": the link itself"));
    return;
  }
  const EndRetest& bad = a_fails ? a : b;
  const EndRetest& good = a_fails ? b : a;
  const std::string link = "the link " + s.host + "-" + s.peer;
  const bool intermittent = bad.outcome == Retest::kIntermittent || s.retest == Retest::kIntermittent;
  s.what = SuspectWhat::kHost;
  s.host = bad.host;
  s.peer.clear();
  s.reason = intermittent ? ReasonKind::kIntermittent : ReasonKind::kOutlier;
  s.retest = intermittent ? Retest::kIntermittent : Retest::kConfirmed;
  s.confirmation = std::string(intermittent ? "intermittent" : "confirmed") + ": " + link + " failed its re-test (" +
                   s.confirmation + "), and " + bad.host + " failed beside known-good partners too (" + bad.tally +
                   ") while " + good.host + " passed beside them (" + good.tally + "): the fault follows " + bad.host;
}

// Two suspects of the same host (one named as itself, one followed from a link) are one: the first keeps the
// other's evidence.
std::vector<AcceptanceSuspect> Merged(std::vector<AcceptanceSuspect> suspects) {
  std::vector<AcceptanceSuspect> out;
  for (AcceptanceSuspect& s : suspects) {
    auto same = std::find_if(out.begin(), out.end(), [&](const AcceptanceSuspect& o) {
      return o.what == s.what && o.host == s.host && o.peer == s.peer && o.rank == s.rank;
    });
    if (same == out.end()) {
      out.push_back(std::move(s));
      continue;
    }
    same->evidence.insert(same->evidence.end(), s.evidence.begin(), s.evidence.end());
  }
  return out;
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
    const std::vector<SuspectBasis> bases = BasesOf(j, s);
    const std::vector<std::vector<Repeat>> by_basis = RepeatsByBasis(bases, ran, s, suspect_hosts);
    const size_t deciding = DecidingBasis(by_basis, spec);
    if (deciding == bases.size()) {
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
    const std::string tally = Tally(bases[deciding], by_basis[deciding], control);
    const std::string beside = "re-tested beside a control pair of known-good hosts at the same moment, " + tally;
    s.retest = OutcomeOf(by_basis[deciding], spec);
    if (s.retest == Retest::kConfirmed) {
      s.confirmation = "confirmed: " + beside;
    } else if (s.retest == Retest::kIntermittent) {
      s.reason = ReasonKind::kIntermittent;
      s.confirmation = "intermittent: " + beside + ", and passed in the others";
    } else {
      if (FailedIn(by_basis[deciding]) > 0) j.report.undecided.push_back(s);
      j.report.notes.push_back(Who(s) + ": not confirmed, left out of the verdict: " + beside + " (named first by: " +
                               (s.evidence.empty() ? std::string("?") : s.evidence.front()) + ")");
      continue;
    }
    if (s.what == SuspectWhat::kLink) FollowTheFaultToAnEnd(s, bases, ran, suspect_hosts, spec, &j.report.undecided);
    s.evidence.push_back(s.confirmation);
    kept.push_back(std::move(s));
  }
  j.report.suspects = Merged(std::move(kept));
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
    if (peer >= 0) {  // each end beside known-good partners too: does the fault follow one of them?
      seen.insert({static_cast<int>(h - hosts.begin()), -1});
      seen.insert({peer, -1});
    }
  }
  std::vector<RetestTarget> out;
  for (const auto& [host, peer] : seen) out.push_back({host, peer});
  return out;
}

RetestPlan PlanRetestsFor(const std::vector<AcceptanceSuspect>& suspects, const Profile& profile,
                          const std::vector<std::string>& hosts, const std::set<std::string>& not_good, int pass) {
  const int rounds = profile.confirm.rounds;
  std::set<int> avoid;
  for (size_t h = 0; h < hosts.size(); ++h) {
    if (not_good.count(hosts[h])) avoid.insert(static_cast<int>(h));
  }
  return PlanRetests(static_cast<int>(hosts.size()), RetestTargetsOf(suspects, hosts), rounds, 4 * rounds,
                     profile.pairs.seed + 7919 + static_cast<uint64_t>(pass), avoid);
}

}  // namespace commbench::accept
