// The assembler: pre-flight, each phase's judge (lib/accept/judge/, one file per phase, listed in registry.cc),
// then the judgements across phases. A phase the profile asks for that did not run is a failure unless the phases
// before it gave a clean answer.
#include "lib/accept/verdict.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "lib/accept/judge/phases.h"

namespace commbench::accept {
namespace {

using judge::Judging;
using judge::Ran;

// The phases of kind `ph` that ran, and why not (the first reason given) when none did.
Ran RanOrWhyNot(const AcceptanceInput& in, Phase ph, std::string* why_not) {
  Ran ran;
  for (const PhaseResult& pr : in.phases) {
    if (pr.phase != ph) continue;
    if (pr.ran) {
      ran.push_back(&pr);
    } else if (why_not->empty()) {
      *why_not = pr.why_not.empty() ? "did not run" : pr.why_not;
    }
  }
  return ran;
}

// A phase the profile asks for that did not run: acceptable only when the phases before it gave a clean answer.
void NotRun(Judging& j, Phase ph, const std::string& why) {
  AcceptanceInput before = j.in;
  before.profile.phases.clear();
  for (Phase q : j.profile.phases) {
    if (q == ph) break;
    before.profile.phases.push_back(q);
  }
  bool clean = false;
  if (!before.profile.phases.empty()) clean = CleanAnswer(Judge(before));
  std::string reason = std::string(Name(ph)) + " phase did not run (" + why + ")";
  reason += clean ? ": not needed, the phases before it gave a clean answer"
                  : ": the phases before it leave the verdict open, so this is a failure";
  j.Add(std::string(Name(ph)) + " phase", "", clean, judge::kNaN, judge::kNaN, "", reason, ReasonKind::kMissing);
  if (!clean) j.report.notes.push_back(reason);
}

}  // namespace

std::string_view Name(SuspectWhat w) {
  switch (w) {
    case SuspectWhat::kHost:
      return "host";
    case SuspectWhat::kLink:
      return "link";
    case SuspectWhat::kRank:
      return "rank";
  }
  return "?";
}

std::string_view Name(ReasonKind k) {
  switch (k) {
    case ReasonKind::kNone:
      return "none";
    case ReasonKind::kThreshold:
      return "threshold";
    case ReasonKind::kMissing:
      return "missing";
    case ReasonKind::kError:
      return "error";
    case ReasonKind::kOutlier:
      return "outlier";
    case ReasonKind::kLink:
      return "link";
    case ReasonKind::kStraggler:
      return "straggler";
    case ReasonKind::kDrift:
      return "drift";
    case ReasonKind::kIntermittent:
      return "intermittent";
  }
  return "?";
}

bool AcceptanceReport::PreflightFailed() const {
  return std::any_of(checks.begin(), checks.end(), [](const Check& c) { return c.preflight && !c.passed; });
}

bool AcceptanceReport::Busy() const {
  if (passed || !suspects.empty() || PreflightFailed()) return false;
  bool any = false;
  for (const Check& c : checks) {
    if (c.passed) continue;
    if (c.disturbed_by.empty()) return false;
    any = true;
  }
  return any;
}

int AcceptanceReport::ExitCode() const {
  if (PreflightFailed() || Busy()) return 3;
  return passed ? 0 : 1;
}

namespace {

// The most CPU that processes outside the run held during any of the phase's points, in CPUs, and the largest
// of them then ("" when no point monitored the host).
double OutsideCpus(const judge::Ran& ran, std::string* who) {
  double most = 0;
  for (const PhaseResult* pr : ran) {
    for (const result::PointResult& pt : pr->points) {
      const double cpus = pt.host_load ? pt.host_load->OutsideCpus() : 0;
      if (cpus <= most) continue;
      most = cpus;
      const auto& top = pt.host_load->top;
      char held[96];
      std::snprintf(held, sizeof(held), "processes outside the run held %.2f of a CPU", cpus);
      *who = held;
      if (pt.host_load->unattributed_cpu_s > (top.empty() ? 0 : top[0].cpu_s)) {
        *who += " (mostly short-lived processes no sample could name)";
      } else if (!top.empty()) {
        *who += " (the largest: " + top[0].comm + ", pid " + std::to_string(top[0].pid) + ")";
      }
    }
  }
  return most;
}

// The timing checks a phase failed while the host was busy: each says so and names the outside process.
void MarkDisturbed(judge::Judging& j, Phase ph, const judge::Ran& ran, size_t first_check) {
  std::string who;
  if (OutsideCpus(ran, &who) < result::kBusyOutsideCpus) return;
  int marked = 0;
  for (size_t i = first_check; i < j.report.checks.size(); ++i) {
    Check& c = j.report.checks[i];
    if (c.passed || (c.kind != ReasonKind::kThreshold && c.kind != ReasonKind::kOutlier)) continue;
    c.disturbed_by = who;
    c.reason += "; measured while " + who + ": the host was busy";
    ++marked;
  }
  if (marked > 0) {
    j.report.notes.push_back(std::string(Name(ph)) + " phase: " + who + " while it ran; its " + std::to_string(marked) +
                             " failed timing check(s) say as much about that load as about the cluster (exit 3 "
                             "where nothing else failed)");
  }
}

}  // namespace

AcceptanceReport Judge(const AcceptanceInput& input) {
  Judging j(input);
  j.report.checks = PreflightChecks(j.profile, input.expected_hosts, input.found);
  for (Check& c : DriftChecks(j.profile, input.expected_hosts, input.found)) j.report.checks.push_back(std::move(c));
  j.CollectPeaks();
  for (Phase ph : j.profile.phases) {
    std::string why_not;
    const Ran ran = RanOrWhyNot(input, ph, &why_not);
    if (ran.empty()) {
      NotRun(j, ph, why_not.empty() ? "no result was given for it" : why_not);
    } else {
      const size_t first_check = j.report.checks.size();
      judge::FindPhaseJudge(ph)->judge(j, ran);
      MarkDisturbed(j, ph, ran, first_check);
    }
  }
  for (const PhaseResult& pr : input.phases) {
    if (pr.ran && pr.phase != Phase::kConfirm && !j.profile.Runs(pr.phase)) {
      j.report.notes.push_back(std::string(Name(pr.phase)) +
                               " phase: results given but the profile does not ask for it; left out");
    }
  }
  j.report.hosts_compared =
      !j.report.pair_matrices.empty() || (!j.report.bisections.empty() && j.profile.sizes.size() < 2);
  judge::RankSuspects(j);
  judge::ConfirmSuspects(j);
  judge::HostVerdicts(j);
  return std::move(j.report);
}

bool CleanAnswer(const AcceptanceReport& report) {
  if (report.PreflightFailed()) return false;
  const bool all_pass =
      std::all_of(report.checks.begin(), report.checks.end(), [](const Check& c) { return c.passed; });
  if (all_pass && report.suspects.empty()) return true;
  if (report.suspects.empty()) return false;
  // A slow pair is a slow link only once each end passed with another partner: after one round a slow host looks
  // like a slow link to whichever host it met.
  const AcceptanceSuspect& first = report.suspects[0];
  // A rank slow at one point only may be that point's noise (16 ranks on 2 cores: one rank's 4 KiB p50 2.7x its
  // peers' once, while another host's ranks waited 24x as long for a CPU): the next phase decides.
  if (first.what == SuspectWhat::kRank && first.points == 1) return false;
  if (first.what == SuspectWhat::kLink) {
    for (const HostVerdict& h : report.hosts) {
      if ((h.host == first.host || h.host == first.peer) && h.partners < 2) return false;
    }
  }
  // The rest must have passed: the cluster and host phases alone, or a bisection that judged busbw but not latency,
  // have not cleared them, and a failed check on a host no suspect names may be a second fault. Either way the
  // localisation goes on.
  if (!report.hosts_compared) return false;
  std::set<std::string> named;
  for (const AcceptanceSuspect& s : report.suspects) {
    named.insert(s.host);
    if (s.what == SuspectWhat::kLink) named.insert(s.peer);
  }
  for (const Check& c : report.checks) {
    if (!c.passed && !c.host.empty() && !named.count(c.host)) return false;
  }
  // Nor is a host that met only suspects in the pairs: the slowness of its pairs, folded into the suspect it met,
  // may be its own (a capped host whose one partner was a latency-slow host: the pair went to that host alone).
  for (const PairMatrix& m : report.pair_matrices) {
    for (size_t i = 0; i < m.hosts.size(); ++i) {
      if (named.count(m.hosts[i])) continue;
      bool cleared = false;
      for (size_t k = 0; k < m.hosts.size() && !cleared; ++k) {
        cleared =
            k != i && !named.count(m.hosts[k]) && i < m.rounds.size() && k < m.rounds[i].size() && m.rounds[i][k] > 0;
      }
      if (!cleared) return false;
    }
  }
  const double top = report.suspects[0].score;
  return top >= judge::kClearScore &&
         (report.suspects.size() == 1 || report.suspects[1].score <= judge::kClearGap * top);
}

std::vector<PairResult> PairResults(const std::vector<PhaseResult>& rounds, Collective op, uint64_t bytes,
                                    const std::vector<std::string>& hosts) {
  Ran ptrs;
  for (const PhaseResult& r : rounds) ptrs.push_back(&r);
  return judge::PairResultsOf(ptrs, op, bytes, hosts);
}

}  // namespace commbench::accept
