// `sweep` and `run`: check the input, run the pipeline (pipeline.h), print the tables and the diagnosis, and
// map the outcome to the exit code.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "lib/launch/driver.h"
#include "lib/model/spec.h"
#include "tools/commbench/sweep_flags.h"

namespace commbench::cli {

// Returns the process exit code: 0 all points ran and were correct; 1 a wrong result, a failed or timed-out
// rank, or an interrupt (partial results are still written); 2 bad input.
int ExecuteSweep(const SweepSpec& spec, const OutputFlags& outputs, const std::string& command);

// What SPMD mode changes: the plan is fitted to the launcher's world, the launches run through its session, and
// the caller learns the run's failure (to pass on to the other ranks).
struct SweepHooks {
  std::function<Status(Plan*, std::vector<std::string>* notes)> fit_plan;
  std::function<DriverOutcome(const Plan&, const DriverOptions&)> run_plan;
  std::string* failure = nullptr;  // set to the run's failure ("" when every point ran), or the bad input
};
int ExecuteSweep(const SweepSpec& spec, const OutputFlags& outputs, const std::string& command,
                 const SweepHooks& hooks);

}  // namespace commbench::cli
