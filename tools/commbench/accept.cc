// `commbench accept --profile FILE`: cluster acceptance. Pre-flight (every rank joined, each host as the profile
// expects), then the profile's phases in order, each a set of points in one result file (Point::phase): the whole
// cluster, each host's own ranks, host pairs in re-pairing rounds. After each phase the verdict so far decides
// whether the next is needed (lib/accept/verdict.h CleanAnswer); the time budget bounds them. The verdict, its
// checks and the ranked suspects go into the result file, JUnit, the markdown summary and the exit code.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "lib/accept/bisect.h"
#include "lib/accept/layout.h"
#include "lib/accept/outputs.h"
#include "lib/accept/profile.h"
#include "lib/accept/verdict.h"
#include "lib/backend/backend.h"
#include "lib/core/atomic_file.h"
#include "lib/launch/own_address.h"
#include "lib/launch/spmd.h"
#include "lib/report/html.h"
#include "lib/sweep/planner.h"
#include "tools/commbench/command_line.h"
#include "tools/commbench/commands.h"
#include "tools/commbench/comparison_outputs.h"
#include "tools/commbench/export_flags.h"
#include "lib/app/pipeline.h"
#include "tools/commbench/spmd_sweep.h"
#include "tools/commbench/sweep_flags.h"

namespace commbench::cli {

using app::FollowUp;
using app::PipelineOutcome;
using app::RunPipeline;
namespace {

struct AcceptOptions {
  std::string profile;
  OutputFlags output;
  std::string junit, summary;
  std::string iface;
  double timeout_s = 60;
  std::string test_only_slow_rank;  // RANK:US, as sweep's; RANK is a launcher rank (SPMD maps it per launch)
  SpmdFlags spmd;
};

int Fail(const Status& status, int code) {
  // A profile's problems come one per line; each gets the prefix.
  std::string text = status.message();
  size_t start = 0;
  while (start <= text.size()) {
    size_t nl = text.find('\n', start);
    std::fprintf(stderr, "commbench: error: %s\n", text.substr(start, nl - start).c_str());
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return code;
}

// The settings every phase shares: the profile's backend, ops, sizes and repeats; a per-point budget that fits
// the phases into the profile's time budget.
SweepSpec BaseSpec(const accept::Profile& p, const AcceptOptions& o, int hosts) {
  SweepSpec s;
  s.backends = {p.backend};
  s.ops.clear();
  for (Collective op : p.ops) s.ops.push_back(std::string(Name(op)));
  s.sizes = p.sizes;
  s.repeats = std::max(p.repeats, 1);
  s.iface = o.iface;
  s.timeout_s = o.timeout_s;
  s.test_only_slow_rank = o.test_only_slow_rank;
  int launches = 0;
  for (accept::Phase phase : p.phases) {
    if (phase == accept::Phase::kPairs) launches += hosts >= 2 ? p.pairs.rounds : 0;
    if (phase == accept::Phase::kBisection) launches += static_cast<int>(accept::BisectionLevels(hosts).size());
    if (phase == accept::Phase::kCluster || phase == accept::Phase::kHost) launches += 1;
  }
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

// One phase to run (a pairs round or a bisection level is one), or one the profile asks for that cannot run
// (why_not).
struct PlannedPhase {
  accept::Phase phase = accept::Phase::kCluster;
  int round = 0;
  accept::Layout layout;
  std::string why_not;
};

std::vector<PlannedPhase> PlanPhases(const accept::Profile& p, const accept::Hosts& hosts) {
  std::vector<PlannedPhase> out;
  for (accept::Phase phase : p.phases) {
    PlannedPhase planned;
    planned.phase = phase;
    if (phase == accept::Phase::kCluster) {
      planned.layout = accept::ClusterLayout(hosts);
    } else if (phase == accept::Phase::kHost) {
      auto layout = accept::HostLayout(hosts);
      if (layout.ok()) planned.layout = *layout;
      else planned.why_not = layout.status().message();
    } else if (phase == accept::Phase::kPairs) {
      if (hosts.names.size() < 2) {
        planned.why_not = "one host: no pair to measure";
        out.push_back(planned);
        continue;
      }
      const auto rounds = accept::RepairingRounds(static_cast<int>(hosts.names.size()), p.pairs.rounds, p.pairs.seed);
      for (size_t r = 0; r < rounds.size(); ++r) {
        PlannedPhase round = planned;
        round.round = static_cast<int>(r + 1);
        auto layout = accept::PairLayout(hosts, rounds[r], round.round);
        if (layout.ok()) round.layout = *layout;
        else round.why_not = layout.status().message();
        out.push_back(round);
      }
      continue;
    } else if (phase == accept::Phase::kBisection) {
      const auto levels = accept::BisectionLevels(static_cast<int>(hosts.names.size()));
      if (levels.empty()) {
        planned.why_not =
            std::to_string(hosts.names.size()) + " host(s): bisection needs at least 4 (two blocks of two)";
        out.push_back(planned);
        continue;
      }
      for (const accept::BisectLevel& level : levels) {
        PlannedPhase planned_level = planned;
        planned_level.round = level.level;
        auto layout = accept::BlockLayout(hosts, level);
        if (layout.ok()) {
          planned_level.layout = *layout;
        } else {
          planned_level.why_not = layout.status().message();
        }
        out.push_back(planned_level);
      }
      continue;
    }
    out.push_back(planned);
  }
  return out;
}

class Acceptance {
 public:
  Acceptance(const accept::Profile& profile, const AcceptOptions& options, accept::Hosts hosts,
             std::vector<accept::HostFound> found)
      : profile_(profile), options_(options), hosts_(std::move(hosts)), found_(std::move(found)) {}

  // Runs the phases through `run_plan` (the driver's or an SPMD session's); the exit code; `failure` as the
  // pipeline reports it.
  int Run(const std::function<DriverOutcome(const Plan&, const DriverOptions&)>& run_plan, std::string* failure) {
    const std::vector<accept::Check> preflight = accept::PreflightChecks(profile_, hosts_.names, found_);
    if (std::any_of(preflight.begin(), preflight.end(), [](const accept::Check& c) { return !c.passed; })) {
      for (const accept::Check& c : preflight) {
        if (!c.passed) std::fprintf(stderr, "commbench: pre-flight: %s%s%s\n", c.host.c_str(), c.host.empty() ? "" : ": ", c.reason.c_str());
      }
      *failure = "pre-flight failed";
      return 3;
    }
    const SweepSpec base = BaseSpec(profile_, options_, static_cast<int>(hosts_.names.size()));
    auto backends = DescribeRegisteredBackends(base.backends);
    if (!backends.ok()) return Fail(backends.status(), 2);
    Status writable = CheckOutputs(options_.output);
    if (writable.ok() && !options_.junit.empty()) writable = CheckWritableOutput(options_.junit);
    if (writable.ok()) writable = CheckSummaryOutputs(options_.summary);
    if (!writable.ok()) return Fail(writable, 2);
    planned_ = PlanPhases(profile_, hosts_);
    // Plans for every phase up front: a phase that cannot be planned is bad input before anything runs.
    for (PlannedPhase& p : planned_) {
      if (!p.why_not.empty()) continue;
      auto plan = PlanPhase(base, p.layout, *backends);
      if (!plan.ok()) return Fail(plan.status(), 2);
      if (plan->point_count() == 0) {
        p.why_not = plan->skipped.empty() ? "no point can run" : plan->skipped.front().reason;
        plans_.emplace_back();
        continue;
      }
      plans_.push_back(std::move(*plan));
    }
    plans_.resize(planned_.size());

    const auto t0 = std::chrono::steady_clock::now();
    app::PipelineRequest request;
    request.tool = ToolIdentity();
    size_t next = FirstRunnable(0);
    if (next == planned_.size()) {
      *failure = "no phase can run";
      return Fail(InvalidArgument("no phase of " + profile_.path + " can run here"), 2);
    }
    request.plan = &plans_[next];
    ran_.assign(planned_.size(), false);
    ran_[next] = true;
    request.spec = base;
    request.command = Invocation();
    request.out = options_.output.out;
    request.quiet = options_.output.quiet;
    request.run_plan = run_plan;
    request.follow_up = [this, &next, t0](const result::ResultFile& so_far) {
      FollowUp f;
      f.explain = false;
      f.again = true;
      const accept::AcceptanceReport report = accept::Judge(Input(so_far));
      const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (accept::CleanAnswer(report)) {
        skipped_reason_ = "skipped: the phases before gave a clean answer";
        return f;
      }
      if (profile_.time_budget_s > 0 && spent > profile_.time_budget_s) {
        skipped_reason_ = "time budget spent (" + std::to_string(static_cast<int>(spent)) + " s of " +
                          std::to_string(static_cast<int>(profile_.time_budget_s)) + " s)";
        return f;
      }
      next = FirstRunnable(next + 1);
      if (next == planned_.size()) return f;
      ran_[next] = true;
      if (!options_.output.quiet) {
        const PlannedPhase& p = planned_[next];
        const std::string step = !p.round                               ? ""
                                 : p.phase == accept::Phase::kBisection ? " level " + std::to_string(p.round)
                                                                        : " round " + std::to_string(p.round);
        std::fprintf(stderr, "commbench: accept: phase %s%s\n", std::string(accept::Name(p.phase)).c_str(),
                     step.c_str());
      }
      f.plan = plans_[next];
      return f;
    };
    request.before_finish = [this](result::ResultFile* file) {
      report_ = accept::Judge(Input(*file));
      file->trailer.acceptance = accept::AcceptanceToJson(report_, profile_);
    };
    PipelineOutcome outcome = RunPipeline(request);
    *failure = outcome.failure;
    return Report(outcome);
  }

 private:
  size_t FirstRunnable(size_t from) const {
    while (from < planned_.size() && !planned_[from].why_not.empty()) ++from;
    return from;
  }

  accept::AcceptanceInput Input(const result::ResultFile& file) const {
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

  int Report(const PipelineOutcome& outcome) {
    if (!outcome.written.ok()) return Fail(outcome.written, 1);
    std::fprintf(stderr, "commbench: wrote %s (%zu points%s)\n", options_.output.out.c_str(),
                 outcome.result.points.size(), outcome.failure.empty() ? "" : ", partial");
    if (!options_.output.html.empty()) {
      Status html = report::WriteHtmlReport(outcome.result, options_.output.html);
      if (!html.ok()) return Fail(html, 1);
    }
    Status exported = WriteExports(outcome.result, options_.output.out, options_.output.exports);
    if (!exported.ok()) return Fail(exported, 1);
    if (!options_.junit.empty()) {
      Status junit = WriteFileAtomically(options_.junit, accept::AcceptanceToJunit(report_));
      if (!junit.ok()) return Fail(junit, 1);
    }
    const std::string markdown = accept::AcceptanceToMarkdown(report_);
    std::fputs(markdown.c_str(), stdout);
    std::fflush(stdout);
    Status summaries = AppendSummaries(options_.summary, markdown);
    if (!summaries.ok()) return Fail(summaries, 1);
    if (!outcome.failure.empty()) std::fprintf(stderr, "commbench: error: %s\n", outcome.failure.c_str());
    return report_.ExitCode();
  }

  const accept::Profile& profile_;
  const AcceptOptions& options_;
  accept::Hosts hosts_;
  std::vector<accept::HostFound> found_;
  std::vector<PlannedPhase> planned_;
  std::vector<Plan> plans_;
  std::vector<bool> ran_;
  std::string skipped_reason_;
  accept::AcceptanceReport report_;
};

// What this rank's host shows of what the profile expects (published with its arrival in SPMD).
std::string HostProblem(const accept::Profile& profile) {
  if (profile.preflight.interface.empty()) return "";
  auto address = InterfaceAddress(profile.preflight.interface);
  return address.ok() ? "" : "no interface " + profile.preflight.interface;
}

// Pre-flight's view of each host: its ranks and, unless one of its ranks reported it missing, the interface.
std::vector<accept::HostFound> Found(const accept::Hosts& hosts, const accept::Profile& profile,
                                     const std::vector<std::string>& problem_of_rank) {
  std::vector<accept::HostFound> out;
  for (size_t h = 0; h < hosts.names.size(); ++h) {
    accept::HostFound f;
    f.host = hosts.names[h];
    f.ranks = hosts.ranks[h];
    bool missing = false;
    for (int r : f.ranks) missing = missing || !problem_of_rank[static_cast<size_t>(r)].empty();
    if (!profile.preflight.interface.empty() && !missing) f.interfaces.push_back(profile.preflight.interface);
    out.push_back(std::move(f));
  }
  return out;
}

int ExecuteAccept(const AcceptOptions& o) {
  auto profile = accept::LoadProfile(o.profile);
  if (!profile.ok()) return Fail(profile.status(), 2);
  SweepSpec probe;  // what SpmdPlace and the rank set-up read: the launcher, the interface, the timeout
  probe.iface = o.iface;
  probe.timeout_s = o.timeout_s;
  auto place = SpmdPlace(o.spmd, probe);
  if (!place.ok()) return Fail(place.status(), 2);
  if (!*place) {
    // The local launcher: every rank on this host, as many as the profile expects per host (2 if it does not say).
    const int ranks = profile->preflight.ranks_per_host > 0 ? profile->preflight.ranks_per_host : 2;
    const std::string problem = HostProblem(*profile);
    accept::Hosts hosts = accept::HostsOf(std::vector<std::string>(static_cast<size_t>(ranks), "127.0.0.1"));
    Acceptance run(*profile, o, hosts, Found(hosts, *profile, std::vector<std::string>(static_cast<size_t>(ranks), problem)));
    std::string failure;
    return run.Run(RunPlan, &failure);
  }
  RunAsSpmdRank(probe, o.spmd, **place, o.output.quiet, HostProblem(*profile),
                [&](SpmdSession& session, std::string* failure) {
                  std::vector<std::string> addresses, problems;
                  for (const SpmdMember& m : session.members()) {
                    addresses.push_back(m.address);
                    problems.push_back(m.problem);
                  }
                  accept::Hosts hosts = accept::HostsOf(addresses);
                  Acceptance run(*profile, o, hosts, Found(hosts, *profile, problems));
                  return run.Run([&session](const Plan& plan, const DriverOptions& driver) {
                    return session.RunPlan(plan, driver);
                  }, failure);
                });
}

}  // namespace

void SetupAccept(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<AcceptOptions>();
  options->output.out = "commbench-accept.json";
  CLI::App* sub = app.add_subcommand("accept", "Cluster acceptance: pass a healthy cluster, name the slow host, link or rank");
  sub->footer(
      "Examples:\n"
      "  commbench accept --profile configs/acceptance/local-smoke.yaml\n"
      "  srun -N 8 -n 16 commbench accept --profile configs/acceptance/virtual-cluster.yaml --rendezvous file:/shared/cb\n"
      "Exit codes: 0 pass, 1 fail, 2 bad profile or flags, 3 could not run (ranks or hosts missing, named).");
  sub->add_option("--profile", options->profile, "Acceptance profile (YAML or JSON), e.g. configs/acceptance/local-smoke.yaml")
      ->required();
  sub->add_option("-o,--out", options->output.out, "Result file (JSON with the verdict)")->capture_default_str();
  sub->add_option("--html", options->output.html, "HTML report");
  AddExportFlags(sub, &options->output.exports);
  sub->add_option("--junit", options->junit, "JUnit XML: a testcase per check and per host");
  sub->add_option("--summary", options->summary, "Append the markdown summary here (and to $GITHUB_STEP_SUMMARY)");
  sub->add_flag("--quiet", options->output.quiet, "No progress lines");
  sub->add_option("--iface", options->iface, "Interface the transports use on every host");
  sub->add_option("--timeout", options->timeout_s, "Seconds a point may go without progress")->capture_default_str();
  sub->add_option("--test-only-slow-rank", options->test_only_slow_rank,
                  "TEST ONLY fault injection, off by default: RANK:US makes that launcher rank sleep US us every "
                  "iteration of every phase");
  AddSpmdFlags(sub, &options->spmd);
  sub->callback([options, exit_code] { *exit_code = ExecuteAccept(*options); });
}

}  // namespace commbench::cli
