// Acceptance's verdict: from a profile, what pre-flight found and each phase's points, the checks (pass or fail
// with the figures), a verdict per host and a ranked list of suspects (a host, a link between two hosts, or one
// rank) with evidence. Fails closed: a phase the profile asks for that did not run, a check without a point, a host
// without points are failures with their reason, never passes. Pure: no I/O.
#pragma once

#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "lib/accept/bisect.h"
#include "lib/accept/confirm.h"
#include "lib/accept/localize.h"
#include "lib/accept/profile.h"
#include "lib/result/point_result.h"

namespace commbench::accept {

// One phase's (or one pairs round's) measurements as the command ran them.
//  - kCluster: every rank in one group (or several concurrent ones).
//  - kHost: one group per host; per_group[g].hosts names it.
//  - kPairs: one round; one group per host pair; per_group[g].hosts names the two.
//  - kBisection: one level (BisectionLevels); one group per block of hosts; per_group[g].hosts names them.
// Several points at the same op and size within a phase are repeats of one another (a check fails only if every
// repeat fails it). Ranks are named by their number in that launch and their host address.
struct PhaseResult {
  Phase phase = Phase::kCluster;
  int round = 0;  // kPairs: 1-based round; kBisection: the level; 0 otherwise
  bool ran = false;
  std::string why_not;  // when !ran: "time budget spent", "not implemented", "skipped: clean answer", ...
  std::vector<result::PointResult> points;
};

// What pre-flight found on one host (by its transport address).
struct HostFound {
  std::string host;
  std::vector<int> ranks;               // ranks that joined from it
  std::vector<std::string> interfaces;  // network interfaces present
  int gpus = -1;                        // -1: not probed
  // Its fingerprint as its first rank reported it: "cpu_model", "cores_online", "kernel", "version.gloo",
  // "env.NCCL_ALGO", "net.eth0.mtu", "gpu.name", ... -> value. Empty: not reported (no drift check for it).
  std::map<std::string, std::string> fingerprint;
};

struct AcceptanceInput {
  Profile profile;
  std::vector<std::string> expected_hosts;  // transport addresses, in the launcher's order
  std::vector<HostFound> found;             // pre-flight
  std::vector<PhaseResult> phases;          // those that ran and those that did not, pairs one per round
};

// What a failed check or a failing host means, for a fleet tool to act on (drain, re-image, re-run):
//  - kThreshold: a figure beyond a profile's floor or ceiling;
//  - kMissing: something that should be there is not (a rank, a host, a point, a phase, enough rounds);
//  - kError: a wrong result (a correctness check);
//  - kOutlier: much slower than its peers (a host at bandwidth or latency, a host or rank by its median);
//  - kLink: one end of a suspect link between two hosts;
//  - kStraggler: a rank that arrives last far more often than chance, by more than the profile allows;
//  - kDrift: its fingerprint (versions, variables, interface, kernel, CPU, GPU) differs from the majority's;
//  - kIntermittent: re-tested, it failed in some repeats and passed in others (a link that flaps, a host slow for
//    part of the run).
enum class ReasonKind { kNone, kThreshold, kMissing, kError, kOutlier, kLink, kStraggler, kDrift, kIntermittent };
std::string_view Name(ReasonKind k);

struct Check {
  std::string name;  // "cluster allreduce 1M busbw", "preflight ranks", "host", ...
  std::string host;  // "" for a cluster-wide check
  bool passed = false;
  double measured = 0, limit = 0;       // NaN where there is no figure
  std::string unit;                     // "GB/s", "us", "ratio", "ranks", "rounds", ""
  std::string reason;                   // one sentence with the figures; why it failed, or what it passed with
  bool preflight = false;               // a pre-flight check (failing one: exit 3, nothing measured)
  ReasonKind kind = ReasonKind::kNone;  // what a failure of it means (kNone: a check that only informs)
  // A failed timing check (threshold, outlier) of a phase during which processes outside the run held at least
  // result::kBusyOutsideCpus of the host's CPUs: "processes outside the run held 0.98 of a CPU (the largest: yes,
  // pid 4242)"; "" otherwise.
  std::string disturbed_by;
};

struct HostVerdict {
  std::string host;
  bool passed = false;
  int points = 0;                         // measurements it took part in, over all phases
  int partners = 0, partners_passed = 0;  // pairs phase: distinct partners met, those whose pair passed
  double host_busbw_gbps = 0;             // host phase, at the largest size of the first op (0: none)
  double pair_busbw_gbps = 0;             // pairs phase, median over its pairs at that size (0: none)
  std::vector<std::string> reasons;       // what failed, one sentence each
  std::vector<ReasonKind> reason_kinds;   // the kinds of its reasons, each once, in ReasonKind order
};

enum class SuspectWhat { kHost, kLink, kRank };
std::string_view Name(SuspectWhat w);

// What named a suspect, so that its re-test asks the same (judge/confirm.cc): the figure at one op and size, and the
// line its ratio to the control's fails beyond.
//  - kBandwidth: the control's busbw over the suspect's (host, pairs and bisection phases);
//  - kMedian, kP99: the suspect's small-message median or p99 time over the control's (judge/latency.cc);
//  - kRankTime, kRankOwnTime: the rank's median time, or its own (its fastest iteration), over its group peers'
//    (judge/ranks.cc: a slow rank, a straggler); no control.
// bytes 0: every size.
enum class Figure { kBandwidth, kMedian, kP99, kRankTime, kRankOwnTime };
struct SuspectBasis {
  Figure figure = Figure::kBandwidth;
  Collective op = Collective::kAllreduce;
  uint64_t bytes = 0;
  double line = 2;  // a ratio above 1
  bool operator==(const SuspectBasis& o) const {
    return figure == o.figure && op == o.op && bytes == o.bytes && line == o.line;
  }
};

// A suspect's re-test (judge/confirm.cc).
enum class Retest { kNotRun, kConfirmed, kIntermittent };

struct AcceptanceSuspect {
  SuspectWhat what = SuspectWhat::kHost;
  std::string host;
  std::string peer;                   // kLink: the other end
  int rank = -1;                      // kRank: its process's rank as the launcher numbered it (--rank, SLURM_PROCID)
  double score = 0;                   // 0..1, how much slower than its peers (1 - its / typical); ranked by it
  std::vector<std::string> evidence;  // sentences with figures
  ReasonKind reason = ReasonKind::kOutlier;  // kStraggler for a straggler rank, kLink for a link
  int points = 0;  // kRank: the points at which it was slow (or the last of its group); 0 where not counted
  int pid = 0;     // kRank: its process id where recorded
  std::vector<SuspectBasis> found_by;  // what named it, each once
  Retest retest = Retest::kNotRun;
  std::string confirmation;  // how its re-test went, one sentence; "" where none ran
};

// The host-by-host pair matrix (the HTML heat map): median busbw of each pair met, NaN where not met, and how
// many rounds each pair met and passed. A round passes when its best repeat reaches the pass line: the
// localisation's threshold and the pairs phase's highest busbw floor at this op and size.
struct PairMatrix {
  Collective op = Collective::kAllreduce;
  uint64_t bytes = 0;
  std::vector<std::string> hosts;
  std::vector<std::vector<double>> gbps;
  std::vector<std::vector<int>> rounds, rounds_passed;  // 0 where not met
  double typical_gbps = 0, threshold_gbps = 0;
  double floor_gbps = std::numeric_limits<double>::quiet_NaN();  // NaN: no pairs floor (or its peak is missing)
  std::string floor;                                             // where it comes from: "declared (...)", "0.5 x ..."
};

// The bisection's levels at one op and size (its largest): each level's blocks with their busbw, failed or not.
struct BisectionTable {
  Collective op = Collective::kAllreduce;
  uint64_t bytes = 0;
  std::vector<std::string> hosts;    // BlockVerdict::hosts index into it
  std::vector<LevelVerdict> levels;  // in level order
};

struct AcceptanceReport {
  bool passed = false;
  std::vector<Check> checks;
  std::vector<HostVerdict> hosts;
  std::vector<AcceptanceSuspect> suspects;  // most likely first; empty for a healthy cluster
  std::vector<PairMatrix> pair_matrices;    // one per op localised (its largest size); empty without pairs
  std::vector<BisectionTable> bisections;   // one per op localised (its largest size); empty without bisection
  std::vector<std::string> notes;           // what was skipped and why, assumptions made
  // Suspects the re-test left out after they failed some of its repeats, fewer than an intermittent fault needs:
  // more rounds can tell (AcceptPhases re-tests them once more). Not part of the verdict.
  std::vector<AcceptanceSuspect> undecided;
  // A phase ran that judges hosts against each other at every figure the profile asks for: pairs (bandwidth and
  // latency), or bisection where the profile has no latency size (it judges busbw only). CleanAnswer's "the rest
  // passed".
  bool hosts_compared = false;

  bool PreflightFailed() const;
  // Failed, with no suspect and every failed check a disturbed timing check: the host was busy, not judged.
  bool Busy() const;
  // 0 pass, 1 fail, 3 could not run (pre-flight failed: ranks or hosts missing, named in the checks) or could not
  // judge (Busy: the outside process named in the checks).
  int ExitCode() const;
};

// Pre-flight alone, before anything is measured: one check per expected host (ranks joined, interface, GPUs) and
// one for the host count. Any failure: exit 3.
std::vector<Check> PreflightChecks(const Profile& profile, const std::vector<std::string>& expected_hosts,
                                   const std::vector<HostFound>& found);

// Drift, with pre-flight but not stopping the run: one "preflight drift" check per host with a fingerprint, failing
// (reason kDrift, exit 1) where it differs from the majority on a key the profile compares; none under 3 hosts.
std::vector<Check> DriftChecks(const Profile& profile, const std::vector<std::string>& expected_hosts,
                               const std::vector<HostFound>& found);

AcceptanceReport Judge(const AcceptanceInput& input);

// The suspects' re-tests (Profile::confirm): one target per host, link or rank's host, in host order whatever the
// suspects' order, so that the command's plan and the judge's reading of it agree; and the rounds that re-test them.
std::vector<RetestTarget> RetestTargetsOf(const std::vector<AcceptanceSuspect>& suspects,
                                          const std::vector<std::string>& hosts);
// `not_good`: hosts that may serve as neither partner nor control (the suspects of an earlier re-test); `pass`
// numbers the re-tests of one run (0 the first), each drawing its partners anew.
RetestPlan PlanRetestsFor(const std::vector<AcceptanceSuspect>& suspects, const Profile& profile,
                          const std::vector<std::string>& hosts, const std::set<std::string>& not_good = {},
                          int pass = 0);

// True when no later phase is needed: every check passed, or the suspects are clearly localised (the first is
// well ahead of anything after it), a phase compared the hosts at every figure (hosts_compared), and no failed check
// is on a host no suspect names (it may be a second fault). The command skips the remaining phases then; Judge accepts
// the skip only when the phases before it give such an answer.
bool CleanAnswer(const AcceptanceReport& report);

// Pair bandwidths of one op and size from pairs rounds, for Localize: one per (point, group of two hosts), the
// group's busbw from its own median time. Hosts are indices into `hosts`; groups on hosts not in it are left out.
std::vector<PairResult> PairResults(const std::vector<PhaseResult>& rounds, Collective op, uint64_t bytes,
                                    const std::vector<std::string>& hosts);

}  // namespace commbench::accept
