// `commbench accept --profile FILE`: cluster acceptance. Pre-flight (every rank joined, each host as the profile
// expects), then the profile's phases in order, each a set of points in one result file (Point::phase): the whole
// cluster, each host's own ranks, host pairs in re-pairing rounds. After each phase the verdict so far decides
// whether the next is needed (lib/accept/verdict.h CleanAnswer); the time budget bounds them. Planning, run and
// the hosts' reports: lib/app/accept_{plan,run,host}.h; here: the flags, the outputs, the exit code.
#include "tools/commbench/accept.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "lib/accept/profile.h"
#include "lib/app/accept_host.h"
#include "lib/app/accept_run.h"
#include "lib/backend/backend.h"
#include "lib/core/printable.h"
#include "tools/commbench/command_line.h"
#include "tools/commbench/commands.h"
#include "tools/commbench/comparison_outputs.h"
#include "tools/commbench/export_flags.h"
#include "tools/commbench/spmd_sweep.h"
#include "tools/commbench/sweep_flags.h"

namespace commbench::cli {
namespace {

int Fail(const Status& status, int code) { return ErrorLines(status.message(), code); }

// Runs the phases through `run_plan` (the driver's or an SPMD session's); the exit code; `failure` as the
// pipeline reports it.
int Run(app::AcceptPhases phases, const AcceptOptions& o,
        const std::function<DriverOutcome(const Plan&, const DriverOptions&)>& run_plan, std::string* failure) {
  const std::vector<accept::Check> preflight = phases.FailedPreflight();
  for (const accept::Check& c : preflight) {
    std::fprintf(stderr, "commbench: pre-flight: %s%s%s\n", Printable(c.host).c_str(), c.host.empty() ? "" : ": ",
                 Printable(c.reason).c_str());
  }
  if (!preflight.empty()) {
    *failure = "pre-flight failed";
    RemoveStaleAcceptOutputs(o);
    return 3;
  }
  Status s = CheckOutputs(o.output, {{"--profile", o.profile}});
  if (s.ok())
    s = CheckOutputsApart({{"--junit", o.junit}, {"--hosts-out", o.hosts_out}, {"--summary", o.summary}},
                          {{"--profile", o.profile}, {"--out", o.output.out}, {"--html", o.output.html}});
  if (s.ok()) s = app::CheckAcceptanceFiles(o.junit, o.hosts_out);
  if (s.ok()) s = CheckSummaryOutputs(o.summary);
  if (!s.ok()) return Fail(s, 2);
  auto base = app::PlanAcceptance(&phases, o.settings);  // a phase that cannot be planned: bad input, nothing ran
  if (!base.ok()) return Fail(base.status(), 2);
  app::AcceptRequest request{ToolIdentity(), Invocation(), o.output.out, o.output.quiet, run_plan, {}};
  request.on_phase = [](const app::PlannedPhase& p) {
    std::fprintf(stderr, "commbench: accept: phase %s\n", app::PhaseLabel(p).c_str());
  };
  auto run = app::RunAcceptance(&phases, *base, request);
  if (!run.ok()) {
    *failure = "no phase can run";
    RemoveStaleAcceptOutputs(o);
    return Fail(run.status(), 2);
  }
  *failure = run->pipeline.failure;
  return ReportAcceptance(*run, o);
}

int ExecuteAccept(const AcceptOptions& o) {
  auto profile = accept::LoadProfile(o.profile, RegisteredBackends());
  if (!profile.ok()) return Fail(profile.status(), 2);
  const SweepSpec probe = app::AcceptLaunchSpec(o.settings);
  auto place = SpmdPlace(o.spmd, probe);
  if (!place.ok()) return Fail(place.status(), 2);
  if (!*place) {
    std::string failure;
    return Run(app::LocalPhases(*profile), o, RunPlan, &failure);
  }
  RunAsSpmdRank(probe, o.spmd, **place, o.output.quiet, app::HostReportText(*profile, o.settings.iface),
                [&](SpmdSession& session, std::string* failure) {
                  auto run_plan = [&session](const Plan& plan, const DriverOptions& driver) {
                    return session.RunPlan(plan, driver);
                  };
                  return Run(app::SessionPhases(*profile, session.members()), o, run_plan, failure);
                });
}

}  // namespace

void SetupAccept(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<AcceptOptions>();
  options->output.out = "commbench-accept.json";
  CLI::App* sub =
      app.add_subcommand("accept", "Cluster acceptance: pass a healthy cluster, name the slow host, link or rank");
  sub->footer(
      "Examples:\n"
      "  commbench accept --profile configs/acceptance/local-smoke.yaml\n"
      "  srun -N 8 -n 16 commbench accept --profile configs/acceptance/virtual-cluster.yaml --rendezvous "
      "file:/shared/cb\n"
      "Exit codes: 0 pass, 1 fail, 2 bad profile or flags, 3 could not run (ranks or hosts missing, named) or "
      "judge (every failed check timed while outside processes held a CPU, named).");
  sub->add_option("--profile", options->profile,
                  "Acceptance profile (YAML or JSON), e.g. configs/acceptance/local-smoke.yaml")
      ->required();
  sub->add_option("-o,--out", options->output.out, "Result file (JSON with the verdict)")->capture_default_str();
  sub->add_option("--html", options->output.html, "HTML report");
  AddExportFlags(sub, &options->output.exports);
  sub->add_option("--junit", options->junit, "JUnit XML: a testcase per check and per host");
  sub->add_option("--hosts-out", options->hosts_out,
                  "One line per host, HOST pass|fail KINDS, for a scheduler that drains nodes (docs/accept.md)");
  sub->add_option("--summary", options->summary, "Append the markdown summary here (and to $GITHUB_STEP_SUMMARY)");
  sub->add_flag("--quiet", options->output.quiet, "No progress lines");
  sub->add_option("--iface", options->settings.iface, "Interface the transports use on every host");
  sub->add_option("--timeout", options->settings.timeout_s, "Seconds a point may go without progress")
      ->capture_default_str();
  sub->add_option("--test-only-slow-rank", options->settings.test_only_slow_rank,
                  "TEST ONLY fault: RANK:US makes that launcher rank sleep US us every iteration of every phase");
  AddSpmdFlags(sub, &options->spmd);
  sub->callback([options, exit_code] { *exit_code = ExecuteAccept(*options); });
}

}  // namespace commbench::cli
