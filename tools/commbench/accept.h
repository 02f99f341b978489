// `commbench accept`'s flags and its outputs beside the result file (accept_outputs.cc).
#pragma once

#include <string>

#include "lib/app/accept_run.h"
#include "tools/commbench/spmd_sweep.h"
#include "tools/commbench/sweep_flags.h"

namespace commbench::cli {

struct AcceptOptions {
  std::string profile;
  OutputFlags output;
  std::string junit, summary, hosts_out;
  app::AcceptSettings settings;  // --iface, --timeout, --test-only-slow-rank (RANK: a launcher rank)
  SpmdFlags spmd;
};

// The outputs beside the result file, the verdict on stdout (and the summaries), and the exit code.
int ReportAcceptance(const app::AcceptOutcome& run, const AcceptOptions& o);
// A run without a verdict leaves none of the previous run's outputs: each removed is said.
void RemoveStaleAcceptOutputs(const AcceptOptions& o);

}  // namespace commbench::cli
