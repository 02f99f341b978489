// The measuring pipeline, composed in this one place: plan -> launch -> aggregate -> diagnose -> write. Each
// point is aggregated and streamed to the result file as soon as its ranks finish; only its summaries stay in
// memory, for the diagnosis, the console and the HTML report. With a follow-up (--explain) a second phase
// runs the points it chooses from the first phase's diagnosis into the same file, and the whole is diagnosed
// again.
#pragma once

#include <functional>
#include <string>

#include "lib/launch/driver.h"
#include "lib/result/result_file.h"
#include "lib/sweep/planner.h"

namespace commbench::app {

// One pair of an interleaved A/B: the A and B points at one group count, for record.abs[ab].
struct AbPair {
  size_t ab = 0;
  std::string a, b;  // point ids
  int groups = 0;
};

// The second phase: from the first phase's result (points and diagnosis), the points to add and why.
struct FollowUp {
  Plan plan;  // no launches: nothing to add
  result::ExplainRecord record;
  bool explain = true;  // record it as --explain's second phase (trailer.explain)
  bool again = false;   // ask for another follow-up once this plan ran (acceptance's phases)
  // An interleaved A/B (--explain): the plan runs `rounds` times instead of --repeats, forward and then backward
  // (A B, B A, ...: launches and the points within each reversed), every launch fresh. Each launch of each pair goes to
  // record.abs[pair.ab].rounds; a point the file does not hold yet is written once, with its rounds as its repeats.
  // Empty: the plan's points are written as a sweep's.
  std::vector<AbPair> pairs;
  int rounds = 1;
  // Each round's timed loop: this share of the spec's time budget and warm-up (RoundSpec), so that the rounds of a
  // side together cost about what one sweep point does; the pairs' spread, not one long loop, gives the interval.
  double loop_share = 1;
};
using PlanFollowUp = std::function<FollowUp(const result::ResultFile& first_phase)>;

struct PipelineRequest {
  result::ToolInfo tool;  // the binary's name, version and commit, recorded in the result
  const Plan* plan = nullptr;
  SweepSpec spec;          // as requested
  std::string command;     // as typed, for the result file and the confirming commands
  std::string out;         // the result file
  bool quiet = false;      // no progress lines
  PlanFollowUp follow_up;  // empty: one phase
  // Called with the whole result just before the trailer is written (acceptance adds its verdict).
  std::function<void(result::ResultFile*)> before_finish;
  // Runs a plan's launches: the driver's RunPlan (every rank forked here), or an SPMD session's (ranks that a
  // launcher started elsewhere). Empty: the driver.
  std::function<DriverOutcome(const Plan&, const DriverOptions&)> run_plan;
  // Variables the rank processes get on top of this process's environment (gate --ab's variants).
  std::vector<std::pair<std::string, std::string>> rank_env;
};

struct PipelineOutcome {
  result::ResultFile result;  // every point, without raw samples (they are in the file)
  std::string failure;        // a rank or launch failure ("" when every point ran)
  Status written;             // the result file: OK once it is complete on disk
};

// Runs the plan and writes the result file. The diagnosis runs on what finished, also after a failure, and the
// file is written (partial, with the failure) in every case it can be.
PipelineOutcome RunPipeline(const PipelineRequest& request);

}  // namespace commbench::app
