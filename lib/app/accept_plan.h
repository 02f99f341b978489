// Acceptance's planning, apart from its command line: the sweep every phase shares (from the profile), the
// phases a profile asks for over the hosts found (a pairs round or a bisection level is one, a phase that cannot
// run here says why), each phase's plan, and after each phase whether the next one is needed (the verdict so far
// gives a clean answer, or the time budget is spent). Pure: no I/O, nothing launched.
#pragma once

#include <cstddef>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "lib/accept/layout.h"
#include "lib/accept/profile.h"
#include "lib/accept/verdict.h"
#include "lib/backend/backend.h"
#include "lib/core/status.h"
#include "lib/model/point.h"
#include "lib/model/spec.h"
#include "lib/result/result_file.h"

namespace commbench::app {

// What the command line adds to a profile's sweep.
struct AcceptSettings {
  std::string iface;                // the transports' interface on every host
  double timeout_s = 60;            // seconds a point may go without progress
  std::string test_only_slow_rank;  // RANK:US, a launcher rank
};

// The settings every phase shares: the profile's backend, ops, sizes and repeats; a per-point budget that fits
// the phases into the profile's time budget over `hosts` hosts.
SweepSpec AcceptBaseSpec(const accept::Profile& profile, const AcceptSettings& settings, int hosts);

// One phase to run (a pairs round or a bisection level is one), or one the profile asks for that cannot run
// (why_not).
struct PlannedPhase {
  accept::Phase phase = accept::Phase::kCluster;
  int round = 0;  // kPairs: the 1-based round; kBisection: the level; 0 otherwise
  accept::Layout layout;
  std::string why_not;
};

// The profile's phases over `hosts`, in run order.
std::vector<PlannedPhase> PlanPhases(const accept::Profile& profile, const accept::Hosts& hosts);

// One phase's launches: `base` with the layout's groups, each point tagged with the phase.
StatusOr<Plan> PlanPhase(const SweepSpec& base, const accept::Layout& layout,
                         const std::vector<BackendDescription>& backends);

// "cluster", "pairs round 2", "bisection level 1": the phase as the progress line names it.
std::string PhaseLabel(const PlannedPhase& phase);

// Pre-flight's view of each host: its ranks and, unless one of its ranks reported a problem
// (`problem_of_rank`, "" when none), the profile's interface.
// `fingerprint_of_rank` (empty: none reported): each host's is its first rank's.
using Fingerprint = std::map<std::string, std::string>;
std::vector<accept::HostFound> FoundOnHosts(const accept::Hosts& hosts, const accept::Profile& profile,
                                            const std::vector<std::string>& problem_of_rank,
                                            const std::vector<Fingerprint>& fingerprint_of_rank = {});

// The phases of one acceptance run: planned up front, then run one after the other while the verdict so far
// leaves the answer open and the time budget lasts; then, once, the re-test rounds of the suspects they named
// (Profile::confirm), and once more for those it left undecided (AcceptanceReport::undecided), which run until done
// or until twice the time budget is spent.
class AcceptPhases {
 public:
  AcceptPhases(accept::Profile profile, accept::Hosts hosts, std::vector<accept::HostFound> found);
  // Over the ranks' hosts (`host_of_rank`, e.g. their transport addresses), pre-flight's view as FoundOnHosts.
  static AcceptPhases OverRanks(const accept::Profile& profile, const std::vector<std::string>& host_of_rank,
                                const std::vector<std::string>& problem_of_rank,
                                const std::vector<Fingerprint>& fingerprint_of_rank = {});

  // The pre-flight checks that failed (empty: every host as the profile expects).
  std::vector<accept::Check> FailedPreflight() const;
  // Plans every phase from `base`: a phase that cannot be planned is bad input (the error); one without a point
  // that can run here gets its why_not.
  Status PlanAll(const SweepSpec& base, const std::vector<BackendDescription>& backends);
  // The first phase that can run, marked as run; none when no phase can.
  std::optional<size_t> Start();
  // After a phase ran: the next phase to run (marked as run). Past the localisation (a clean answer, `spent_s` over
  // the profile's time budget, or no phase left), the re-test rounds of its suspects, planned then; none when those
  // are done too.
  std::optional<size_t> Next(const result::ResultFile& so_far, double spent_s);
  // The judge's input from the result (so far or whole): each phase with its points, ran or why not.
  accept::AcceptanceInput Input(const result::ResultFile& file) const;
  // The verdict of the whole result, recorded in its trailer.
  accept::AcceptanceReport Finish(result::ResultFile* file) const;

  const std::vector<PlannedPhase>& phases() const { return planned_; }
  const Plan& plan(size_t phase) const { return plans_[phase]; }
  const accept::Profile& profile() const { return profile_; }
  const accept::Hosts& hosts() const { return hosts_; }

 private:
  size_t FirstRunnable(size_t from) const;
  // Appends the re-test rounds of `suspects` (kConfirm phases, each with its plan, numbered after any earlier
  // ones); hosts re-tested earlier serve as neither partner nor control.
  void AddRetests(const std::vector<accept::AcceptanceSuspect>& suspects);

  accept::Profile profile_;
  accept::Hosts hosts_;
  std::vector<accept::HostFound> found_;
  std::vector<PlannedPhase> planned_;
  std::deque<Plan> plans_;  // a deque: the re-tests append, and the pipeline holds the first phase's plan by pointer
  std::vector<bool> ran_;
  std::string skipped_reason_;
  SweepSpec spec_;  // PlanAll's, for the re-tests
  std::vector<BackendDescription> backends_;
  bool retests_added_ = false;
  bool retests_extended_ = false;         // the undecided suspects got their second re-test
  std::set<std::string> retested_hosts_;  // every host a re-test so far named (its suspects' hosts and peers)
};

}  // namespace commbench::app
