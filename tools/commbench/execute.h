// spec -> plan -> launch -> measure -> aggregate -> analyse -> write: the pipeline `sweep` and `run` share.
#pragma once

#include <string>

#include "lib/sweep/spec.h"
#include "tools/commbench/sweep_flags.h"

namespace commbench::cli {

// Returns the process exit code: 0 all points ran and were correct; 1 a wrong result, a failed or timed-out
// rank, or an interrupt (partial results are still written); 2 bad input.
int ExecuteSweep(const SweepSpec& spec, const OutputFlags& outputs, const std::string& command);

// The command line as typed, quoted where needed, for the result file and the report. main() remembers it.
std::string CommandLine(int argc, char** argv);
void RememberInvocation(int argc, char** argv);
const std::string& Invocation();

}  // namespace commbench::cli
