#include "lib/app/accept_plan.h"

#include <algorithm>
#include <utility>

#include "lib/accept/bisect.h"
#include "lib/accept/outputs.h"
#include "lib/sweep/planner.h"

namespace commbench::app {
namespace {

// The launches the phases take at most: the budget is shared among their points.
int PhaseLaunches(const accept::Profile& p, int hosts) {
  int launches = 0;
  for (accept::Phase phase : p.phases) {
    if (phase == accept::Phase::kPairs) launches += hosts >= 2 ? p.pairs.rounds : 0;
    if (phase == accept::Phase::kBisection) launches += static_cast<int>(accept::BisectionLevels(hosts).size());
    if (phase == accept::Phase::kCluster || phase == accept::Phase::kHost) launches += 1;
  }
  return launches;
}

void AddPairRounds(const accept::Profile& p, const accept::Hosts& hosts, PlannedPhase planned,
                   std::vector<PlannedPhase>* out) {
  if (hosts.names.size() < 2) {
    planned.why_not = "one host: no pair to measure";
    out->push_back(planned);
    return;
  }
  const auto rounds = accept::RepairingRounds(static_cast<int>(hosts.names.size()), p.pairs.rounds, p.pairs.seed);
  for (size_t r = 0; r < rounds.size(); ++r) {
    PlannedPhase round = planned;
    round.round = static_cast<int>(r + 1);
    auto layout = accept::PairLayout(hosts, rounds[r], round.round);
    if (layout.ok())
      round.layout = *layout;
    else
      round.why_not = layout.status().message();
    out->push_back(round);
  }
}

void AddBisectionLevels(const accept::Hosts& hosts, PlannedPhase planned, std::vector<PlannedPhase>* out) {
  const auto levels = accept::BisectionLevels(static_cast<int>(hosts.names.size()));
  if (levels.empty()) {
    planned.why_not = std::to_string(hosts.names.size()) + " host(s): bisection needs at least 4 (two blocks of two)";
    out->push_back(planned);
    return;
  }
  for (const accept::BisectLevel& level : levels) {
    PlannedPhase planned_level = planned;
    planned_level.round = level.level;
    auto layout = accept::BlockLayout(hosts, level);
    if (layout.ok())
      planned_level.layout = *layout;
    else
      planned_level.why_not = layout.status().message();
    out->push_back(planned_level);
  }
}

}  // namespace

SweepSpec AcceptBaseSpec(const accept::Profile& p, const AcceptSettings& settings, int hosts) {
  SweepSpec s;
  s.backends = {p.backend};
  s.ops.clear();
  for (Collective op : p.ops) s.ops.push_back(std::string(Name(op)));
  s.sizes = p.sizes;
  s.repeats = std::max(p.repeats, 1);
  s.iface = settings.iface;
  s.timeout_s = settings.timeout_s;
  s.test_only_slow_rank = settings.test_only_slow_rank;
  const int launches = PhaseLaunches(p, hosts);
  const double points = static_cast<double>(std::max(launches, 1) * p.ops.size() * p.sizes.size() * s.repeats);
  // Half the budget for the timed loops; the rest is set-up, warm-up and the launches themselves.
  const double per_point = p.time_budget_s > 0 ? 0.5 * p.time_budget_s / points : 0.2;
  s.time_budget_s = std::clamp(per_point, 0.02, 0.5);
  // A rate against a floor, not a tight median: few iterations, so that a slow link (seconds per op) still
  // finishes its point within --timeout; the repeats and the pairs rounds give the verdict its evidence.
  s.warmup = 2;
  s.min_iters = 5;
  s.max_world = 4096;
  return s;
}

std::vector<PlannedPhase> PlanPhases(const accept::Profile& p, const accept::Hosts& hosts) {
  std::vector<PlannedPhase> out;
  for (accept::Phase phase : p.phases) {
    PlannedPhase planned;
    planned.phase = phase;
    if (phase == accept::Phase::kPairs) {
      AddPairRounds(p, hosts, planned, &out);
      continue;
    }
    if (phase == accept::Phase::kBisection) {
      AddBisectionLevels(hosts, planned, &out);
      continue;
    }
    if (phase == accept::Phase::kCluster) {
      planned.layout = accept::ClusterLayout(hosts);
    } else if (phase == accept::Phase::kHost) {
      auto layout = accept::HostLayout(hosts);
      if (layout.ok())
        planned.layout = *layout;
      else
        planned.why_not = layout.status().message();
    }
    out.push_back(planned);
  }
  return out;
}

StatusOr<Plan> PlanPhase(const SweepSpec& base, const accept::Layout& layout,
                         const std::vector<BackendDescription>& backends) {
  SweepSpec s = base;
  s.groups = {layout.groups};
  s.group_sizes = {layout.group_size};
  ASSIGN_OR_RETURN(Plan plan, PlanSweep(s, backends));
  for (Launch& l : plan.launches) {
    l.order = layout.order;
    for (Point& p : l.points) p.phase = layout.phase;
  }
  return plan;
}

std::string PhaseLabel(const PlannedPhase& p) {
  const std::string step = !p.round                               ? ""
                           : p.phase == accept::Phase::kBisection ? " level " + std::to_string(p.round)
                                                                  : " round " + std::to_string(p.round);
  return std::string(accept::Name(p.phase)) + step;
}

std::vector<accept::HostFound> FoundOnHosts(const accept::Hosts& hosts, const accept::Profile& profile,
                                            const std::vector<std::string>& problem_of_rank,
                                            const std::vector<Fingerprint>& fingerprint_of_rank) {
  std::vector<accept::HostFound> out;
  for (size_t h = 0; h < hosts.names.size(); ++h) {
    accept::HostFound f;
    f.host = hosts.names[h];
    f.ranks = hosts.ranks[h];
    bool missing = false;
    for (int r : f.ranks) missing = missing || !problem_of_rank[static_cast<size_t>(r)].empty();
    if (!profile.preflight.interface.empty() && !missing) f.interfaces.push_back(profile.preflight.interface);
    const auto first = static_cast<size_t>(f.ranks.empty() ? -1 : f.ranks.front());
    if (first < fingerprint_of_rank.size()) f.fingerprint = fingerprint_of_rank[first];
    out.push_back(std::move(f));
  }
  return out;
}

AcceptPhases::AcceptPhases(accept::Profile profile, accept::Hosts hosts, std::vector<accept::HostFound> found)
    : profile_(std::move(profile)), hosts_(std::move(hosts)), found_(std::move(found)) {}

AcceptPhases AcceptPhases::OverRanks(const accept::Profile& profile, const std::vector<std::string>& host_of_rank,
                                     const std::vector<std::string>& problem_of_rank,
                                     const std::vector<Fingerprint>& fingerprint_of_rank) {
  accept::Hosts hosts = accept::HostsOf(host_of_rank);
  std::vector<accept::HostFound> found = FoundOnHosts(hosts, profile, problem_of_rank, fingerprint_of_rank);
  return AcceptPhases(profile, std::move(hosts), std::move(found));
}

std::vector<accept::Check> AcceptPhases::FailedPreflight() const {
  std::vector<accept::Check> failed;
  for (const accept::Check& c : accept::PreflightChecks(profile_, hosts_.names, found_)) {
    if (!c.passed) failed.push_back(c);
  }
  return failed;
}

Status AcceptPhases::PlanAll(const SweepSpec& base, const std::vector<BackendDescription>& backends) {
  planned_ = PlanPhases(profile_, hosts_);
  plans_.clear();
  // The cap on worlds guards against a runaway rank count, not against a big fleet: up to 16 ranks per host
  // pass whatever the hosts (4096 hosts of 2 ranks each were refused at the sweep's 4096).
  SweepSpec spec = base;
  spec.max_world = std::max<int64_t>(spec.max_world, 16 * static_cast<int64_t>(hosts_.names.size()));
  for (PlannedPhase& p : planned_) {
    if (!p.why_not.empty()) {  // its slot stays, empty: every later phase keeps its own plan
      plans_.emplace_back();
      continue;
    }
    ASSIGN_OR_RETURN(Plan plan, PlanPhase(spec, p.layout, backends));
    if (plan.point_count() == 0) {
      p.why_not = plan.skipped.empty() ? "no point can run" : plan.skipped.front().reason;
      plans_.emplace_back();
      continue;
    }
    plans_.push_back(std::move(plan));
  }
  ran_.assign(planned_.size(), false);
  skipped_reason_.clear();
  spec_ = spec;
  backends_ = backends;
  retests_added_ = false;
  retests_extended_ = false;
  retested_hosts_.clear();
  return OkStatus();
}

size_t AcceptPhases::FirstRunnable(size_t from) const {
  while (from < planned_.size() && !planned_[from].why_not.empty()) ++from;
  return from;
}

std::optional<size_t> AcceptPhases::Start() {
  const size_t first = FirstRunnable(0);
  if (first == planned_.size()) return std::nullopt;
  ran_[first] = true;
  return first;
}

void AcceptPhases::AddRetests(const std::vector<accept::AcceptanceSuspect>& suspects) {
  const int pass = retests_added_ ? 1 : 0;
  retests_added_ = true;
  if (profile_.confirm.rounds <= 0 || suspects.empty()) return;
  const accept::RetestPlan retests = accept::PlanRetestsFor(suspects, profile_, hosts_.names, retested_hosts_, pass);
  for (const accept::AcceptanceSuspect& s : suspects) {
    retested_hosts_.insert(s.host);
    if (!s.peer.empty()) retested_hosts_.insert(s.peer);
  }
  int round = 0;
  for (const PlannedPhase& p : planned_) {
    if (p.phase == accept::Phase::kConfirm) round = std::max(round, p.round);
  }
  for (size_t r = 0; r < retests.rounds.size(); ++r) {
    PlannedPhase p;
    p.phase = accept::Phase::kConfirm;
    p.round = round + static_cast<int>(r + 1);
    Plan plan;
    auto layout = accept::RetestLayout(hosts_, retests.rounds[r].pairs, p.round);
    if (layout.ok()) {
      p.layout = *layout;
      auto planned = PlanPhase(spec_, p.layout, backends_);
      if (planned.ok() && planned->point_count() > 0) {
        plan = std::move(*planned);
      } else {
        p.why_not = planned.ok() ? "no point can run" : planned.status().message();
      }
    } else {
      p.why_not = layout.status().message();
    }
    planned_.push_back(std::move(p));
    plans_.push_back(std::move(plan));
    ran_.push_back(false);
  }
}

std::optional<size_t> AcceptPhases::Next(const result::ResultFile& so_far, double spent_s) {
  size_t last = 0;
  for (size_t i = 0; i < ran_.size(); ++i) {
    if (ran_[i]) last = i;
  }
  const double budget = profile_.time_budget_s;
  if (!retests_added_) {
    const accept::AcceptanceReport report = accept::Judge(Input(so_far));
    const size_t next = FirstRunnable(last + 1);
    if (accept::CleanAnswer(report)) {
      skipped_reason_ = "skipped: the phases before gave a clean answer";
    } else if (budget > 0 && spent_s > budget) {
      skipped_reason_ = "time budget spent (" + std::to_string(static_cast<int>(spent_s)) + " s of " +
                        std::to_string(static_cast<int>(budget)) + " s)";
    } else if (next < planned_.size()) {
      ran_[next] = true;
      return next;
    }
    const size_t localised = planned_.size();
    AddRetests(report.suspects);
    last = localised - 1;
  }
  size_t next = FirstRunnable(last + 1);
  const bool over = budget > 0 && spent_s > 2 * budget;
  if (next == planned_.size() && !retests_extended_ && !over) {
    // A suspect that failed some of its re-test's repeats, too few to call intermittent, gets as many rounds again
    // (a link flapping in spells as long as a few launches can pass three rounds of four).
    retests_extended_ = true;
    const size_t before = planned_.size();
    AddRetests(accept::Judge(Input(so_far)).undecided);
    next = FirstRunnable(before);
  }
  if (next == planned_.size()) return std::nullopt;
  if (over) {
    for (size_t i = next; i < planned_.size(); ++i) {
      if (planned_[i].why_not.empty()) {
        planned_[i].why_not = "time budget spent (" + std::to_string(static_cast<int>(spent_s)) + " s, twice the " +
                              std::to_string(static_cast<int>(budget)) + " s allowed the localisation)";
      }
    }
    return std::nullopt;
  }
  ran_[next] = true;
  return next;
}

accept::AcceptanceInput AcceptPhases::Input(const result::ResultFile& file) const {
  accept::AcceptanceInput in;
  in.profile = profile_;
  in.expected_hosts = hosts_.names;
  in.found = found_;
  for (size_t i = 0; i < planned_.size(); ++i) {
    accept::PhaseResult phase;
    phase.phase = planned_[i].phase;
    phase.round = planned_[i].round;
    phase.ran = i < ran_.size() && ran_[i];
    phase.why_not = !planned_[i].why_not.empty() ? planned_[i].why_not
                                                 : (skipped_reason_.empty() ? "not reached" : skipped_reason_);
    if (phase.ran) phase.why_not.clear();
    for (const result::PointResult& p : file.points) {
      if (p.point.phase == planned_[i].layout.phase && !planned_[i].layout.phase.empty()) phase.points.push_back(p);
    }
    in.phases.push_back(std::move(phase));
  }
  return in;
}

accept::AcceptanceReport AcceptPhases::Finish(result::ResultFile* file) const {
  accept::AcceptanceReport report = accept::Judge(Input(*file));
  file->trailer.acceptance = accept::AcceptanceToJson(report, profile_);
  return report;
}

}  // namespace commbench::app
