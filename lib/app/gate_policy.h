// The gate's policy, apart from its command line: how a stored baseline's sweep is run again and kept, how the
// repeats of one --ab variant become one result, and what a variant (--a, --b) sets for the rank processes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lib/core/status.h"
#include "lib/model/spec.h"
#include "lib/result/result_file.h"

namespace commbench::app {

// One side of `gate --ab`: the variables its rank processes get, and the TEST ONLY planted slowdown
// (COMMBENCH_TEST_ONLY_UNIFORM_SLOWDOWN=F in a variant plants --test-only-uniform-slowdown F on that side).
struct Variant {
  std::vector<std::pair<std::string, std::string>> rank_env;
  std::optional<double> uniform_slowdown;
  std::vector<std::string> Names() const;  // every variable it sets, the planted slowdown's included
};

inline constexpr const char* kSlowdownVariable = "COMMBENCH_TEST_ONLY_UNIFORM_SLOWDOWN";

// "K=V[,K=V...]" (empty: no assignment); `flag` names the flag in the error.
StatusOr<Variant> ParseVariant(const std::string& text, const char* flag);

// The sweep keys `given` sets to something else than `defaults` that `baseline` does not record the same (TEST
// ONLY keys and --explain aside): in --baseline mode the flags must ask for the baseline's own sweep.
std::vector<std::string> SpecConflicts(const SweepSpec& given, const SweepSpec& baseline, const SweepSpec& defaults);

// What a baseline gate runs: the baseline's own spec, repeats included, without --explain, with `given`'s TEST
// ONLY fault injections.
SweepSpec GateSpec(const SweepSpec& baseline, const SweepSpec& given);

// A result as a baseline keeps it: without raw samples (the sidecar they were in is the run's, not the
// baseline's).
std::string BaselineText(result::ResultFile file);

// Every point ran and computed the right result: only then may a result become a baseline.
bool CompleteAndCorrect(const result::ResultFile& file);

// The one-repeat results of one variant as one result: each point's repeats in one record; partial when fewer
// than `repeats` ran or one of them was.
result::ResultFile MergeRepeats(const std::vector<result::ResultFile>& runs, int64_t repeats);

}  // namespace commbench::app
