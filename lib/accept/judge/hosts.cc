// Across phases, last: arrival-skew evidence for host suspects, the suspects ranked and listed as checks, a host
// that took part in no point (fails closed), each host's verdict (its failed checks, a suspect link it ends) and
// the whole verdict (every check passed and no suspect).
#include <algorithm>
#include <cmath>
#include <set>

#include "lib/accept/judge/phases.h"

namespace commbench::accept::judge {
namespace {

// Which of a host suspect's ranks was the slowest of a point, how often.
void SkewEvidence(Judging& j) {
  for (AcceptanceSuspect& s : j.report.suspects) {
    if (s.what != SuspectWhat::kHost) continue;
    auto it = j.rank_records.find(s.host);
    if (it == j.rank_records.end()) continue;
    int last = 0;
    double skew = 0;
    for (const auto& [rank, rec] : it->second) {
      last += rec.last_arrivals;
      skew = std::max(skew, rec.max_skew_us);
    }
    if (last > 0) {
      s.evidence.push_back("arrival skew: one of its ranks was the slowest at " + std::to_string(last) +
                           " point(s), start skew up to " + Us(skew));
    } else {
      s.evidence.push_back(
          "arrival skew: none of its ranks was the slowest of a point (the delay is between "
          "hosts, not in a rank)");
    }
  }
}

// Most likely first, each one a failed check.
void RankAndListSuspects(Judging& j) {
  std::stable_sort(j.report.suspects.begin(), j.report.suspects.end(),
                   [](const AcceptanceSuspect& a, const AcceptanceSuspect& b) { return a.score > b.score; });
  for (const AcceptanceSuspect& s : j.report.suspects) {
    std::string name = "suspect " + std::string(Name(s.what));
    std::string who = s.what == SuspectWhat::kLink   ? s.host + "-" + s.peer
                      : s.what == SuspectWhat::kRank ? s.host + " rank " + std::to_string(s.rank)
                                                     : s.host;
    j.Add(name, s.host, false, s.score, 0, "score", who + ": " + (s.evidence.empty() ? "" : s.evidence.front()),
          s.reason);
  }
}

// Host -> the points it took part in, over every phase the profile asks for that ran.
std::map<std::string, int> PointsPerHost(const Judging& j) {
  std::map<std::string, int> points;
  for (const PhaseResult& pr : j.in.phases) {
    if (!pr.ran || !j.profile.Runs(pr.phase)) continue;
    for (const result::PointResult& pt : pr.points) {
      std::set<std::string> seen;
      for (const result::RankTime& r : pt.per_rank) seen.insert(AddressOf(r));
      for (const result::GroupTime& g : pt.per_group) {
        for (const std::string& h : GroupHosts(pt, g)) seen.insert(h);
      }
      for (const std::string& h : seen) ++points[h];
    }
  }
  return points;
}

// Each host's failed checks and the suspect links it ends, in report order, from one pass over each (a pass per
// host is quadratic in the hosts).
struct HostFailures {
  std::vector<const Check*> checks;
  std::vector<const AcceptanceSuspect*> links;
};

std::map<std::string, HostFailures> FailuresByHost(const Judging& j) {
  std::map<std::string, HostFailures> out;
  for (const Check& c : j.report.checks) {
    if (!c.passed) out[c.host].checks.push_back(&c);
  }
  for (const AcceptanceSuspect& s : j.report.suspects) {
    if (s.what != SuspectWhat::kLink) continue;
    out[s.host].links.push_back(&s);
    if (s.peer != s.host) out[s.peer].links.push_back(&s);
  }
  return out;
}

HostVerdict VerdictOf(Judging& j, const std::string& host, int points, const HostFailures& failures) {
  HostVerdict v;
  v.host = host;
  v.points = points;
  if (j.pair_score.count(host)) {
    v.partners = std::get<0>(j.pair_score[host]);
    v.partners_passed = std::get<1>(j.pair_score[host]);
    v.pair_busbw_gbps = std::get<2>(j.pair_score[host]);
  }
  if (j.host_busbw.count(host) && std::isfinite(j.host_busbw[host])) v.host_busbw_gbps = j.host_busbw[host];
  std::set<ReasonKind> kinds;
  for (const Check* c : failures.checks) {
    v.reasons.push_back(c->name + ": " + c->reason);
    kinds.insert(c->kind == ReasonKind::kNone ? ReasonKind::kThreshold : c->kind);
  }
  for (const AcceptanceSuspect* s : failures.links) {
    v.reasons.push_back("one end of the suspect link " + s->host + "-" + s->peer);
    kinds.insert(ReasonKind::kLink);
  }
  v.reason_kinds.assign(kinds.begin(), kinds.end());
  v.passed = v.reasons.empty();
  return v;
}

}  // namespace

void HostVerdicts(Judging& j) {
  SkewEvidence(j);
  RankAndListSuspects(j);
  const std::map<std::string, int> points = PointsPerHost(j);
  for (const std::string& host : j.hosts()) {
    if (!points.count(host)) {
      j.Add("host measured", host, false, 0, 1, "points", host + ": took part in no measured point (fails closed)",
            ReasonKind::kMissing);
    }
  }
  const std::map<std::string, HostFailures> failures = FailuresByHost(j);
  const HostFailures none;
  for (const std::string& host : j.hosts()) {
    const auto f = failures.find(host);
    j.report.hosts.push_back(
        VerdictOf(j, host, points.count(host) ? points.at(host) : 0, f == failures.end() ? none : f->second));
  }
  const auto& checks = j.report.checks;
  j.report.passed =
      std::all_of(checks.begin(), checks.end(), [](const Check& c) { return c.passed; }) && j.report.suspects.empty();
}

}  // namespace commbench::accept::judge
