// Acceptance's run: the planned phases (accept_plan.h) through the pipeline into one result file, the first phase
// the pipeline's plan and each later one a follow-up that the verdict so far asks for; the verdict of the whole
// goes into the file's trailer.
#pragma once

#include <functional>
#include <string>

#include "lib/accept/profile.h"
#include "lib/accept/verdict.h"
#include "lib/app/accept_plan.h"
#include "lib/app/pipeline.h"
#include "lib/core/status.h"

namespace commbench::app {

struct AcceptRequest {
  result::ToolInfo tool;  // recorded in the result
  std::string command;    // as typed
  std::string out;        // the result file
  bool quiet = false;     // no progress lines (and no on_phase calls)
  // The driver's RunPlan, or an SPMD session's.
  std::function<DriverOutcome(const Plan&, const DriverOptions&)> run_plan;
  std::function<void(const PlannedPhase&)> on_phase;  // each phase after the first, as it starts
};

struct AcceptOutcome {
  PipelineOutcome pipeline;
  accept::AcceptanceReport report;  // the verdict of the whole, as the result file records it
};

// Runs `phases` (PlanAll done) from `base`. InvalidArgument when no phase can run here (nothing runs).
StatusOr<AcceptOutcome> RunAcceptance(AcceptPhases* phases, const SweepSpec& base, const AcceptRequest& request);

// What the launcher's placement and each rank's set-up read before any phase is planned (SpmdPlace): the
// interface and the timeout.
SweepSpec AcceptLaunchSpec(const AcceptSettings& settings);

// A profile's base sweep (AcceptBaseSpec over `phases`' hosts) and every phase planned against the registered
// backends. InvalidArgument: the profile's backend is not in this build, or a phase cannot be planned (bad input,
// nothing ran).
StatusOr<SweepSpec> PlanAcceptance(AcceptPhases* phases, const AcceptSettings& settings);

// The fleet's files beside the result: `junit` (a testcase per check and per host) and `hosts_out` (a line per
// host); "" is none. Checked before anything runs (CheckWritableOutput), written atomically after.
Status CheckAcceptanceFiles(const std::string& junit, const std::string& hosts_out);
Status WriteAcceptanceFiles(const accept::AcceptanceReport& report, const std::string& junit,
                            const std::string& hosts_out);

// A run without a verdict must not leave the previous run's outputs behind (a drain script would read their
// "pass"): removes each of `paths` that is a regular file or a link (the link itself, never its target) and
// returns those removed.
std::vector<std::string> RemoveStaleOutputs(const std::vector<std::string>& paths);

}  // namespace commbench::app
