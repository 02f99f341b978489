// `sweep` and `run`: check the input, run the pipeline (pipeline.h), print the tables and the diagnosis, and
// map the outcome to the exit code.
#pragma once

#include <string>

#include "lib/sweep/spec.h"
#include "tools/commbench/sweep_flags.h"

namespace commbench::cli {

// Returns the process exit code: 0 all points ran and were correct; 1 a wrong result, a failed or timed-out
// rank, or an interrupt (partial results are still written); 2 bad input.
int ExecuteSweep(const SweepSpec& spec, const OutputFlags& outputs, const std::string& command);

}  // namespace commbench::cli
