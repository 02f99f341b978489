// The gate's runs, apart from its command line: one spec planned and run through the pipeline (GateRunner), the
// baseline a gate compares with and the sweep it runs again, and `--ab`'s alternating loop (A B A B ..., one
// repeat of every point each time, fresh launches) that returns each variant's repeats as one result. The
// printing, the outputs beside the result and the exit codes stay with the command.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "lib/app/gate_policy.h"
#include "lib/app/pipeline.h"
#include "lib/backend/backend.h"
#include "lib/core/status.h"
#include "lib/gate/compare.h"
#include "lib/gate/disturbance.h"
#include "lib/gate/host_shift.h"
#include "lib/gate/sequential_gate.h"
#include "lib/model/spec.h"
#include "lib/result/host_reference.h"
#include "lib/result/result_file.h"

namespace commbench::app {

// Plans a spec, then runs it (as often as asked, each time into its own result file).
class GateRunner {
 public:
  GateRunner(result::ToolInfo tool, std::string command, bool quiet);
  // Plans `spec`: a bad spec, or one without a point that can run here, is bad input.
  Status Prepare(const SweepSpec& spec);
  // Runs the prepared plan with `spec`'s settings into `out`, the variant's variables set for the ranks; only the
  // points of `only` when given (a sequential gate's undecided points).
  PipelineOutcome Run(const SweepSpec& spec, const std::string& out, const Variant& variant = {},
                      const std::set<std::string>* only = nullptr) const;
  std::set<std::string> point_ids() const;
  size_t points() const { return plan_.point_count(); }

 private:
  result::ToolInfo tool_;
  std::string command_;
  bool quiet_ = false;
  std::vector<BackendDescription> backends_;
  Plan plan_;
};

// What a baseline gate compares with and runs: the baseline as stored, and its own spec (repeats included) with
// `given`'s TEST ONLY fault injections. Bad input: the baseline cannot be read or compared, or `given` sets a key
// (away from `defaults`) to another value than the baseline records.
struct BaselineGate {
  result::ResultFile base;
  SweepSpec spec;
};
StatusOr<BaselineGate> LoadBaselineGate(const std::string& path, const SweepSpec& given, const SweepSpec& defaults);

// Writes `run` over (or as) the baseline `path`, atomically, as a baseline keeps it (BaselineText).
Status KeepAsBaseline(const result::ResultFile& run, const std::string& path);

// --ab: what the loop tells as it goes (each may be empty).
struct AbProgress {
  std::function<void(int64_t repeat, int variant)> starting;  // repeat from 1; variant 0 is A, 1 is B
  std::function<void(int variant, const std::string& failure)> failed;
};

struct AbRun {
  result::ResultFile a, b;  // each variant's repeats as one result (MergeRepeats), partial when one failed
};

// Runs `once` (one repeat; the runner prepared it) `repeats` times for each variant, A then B, into files under
// `dir`, stopping after the first run that fails. An error: a run's result file could not be written.
StatusOr<AbRun> RunAlternating(const GateRunner& runner, const SweepSpec& once, const Variant& a, const Variant& b,
                               int64_t repeats, const std::string& dir, const AbProgress& progress);

// A sequential gate (docs/gate.md, "Sequential repeats"): rounds of one repeat of every undecided point (--ab: A
// then B), a look at the schedule's rounds, decided points dropped, until every point is decided, the planned
// repeats ran, or the wall-clock budget would be passed by another round. A repeat measured while something else
// held the ranks' CPUs (lib/gate/disturbance.h) is re-run at once, at most `max_reruns` times per point and side,
// then judged and named.
// A round's samples of the host's reference (a few milliseconds each): one alone left the comparison too wide to
// see a host 7 % slower (interval 0.985-1.172 at 40 and 60 samples, every point 11-32 % slower, an A/A job's exit 1).
inline constexpr int kHostSamplesPerRound = 3;

struct SequentialOptions {
  gate::LookSchedule schedule;
  double budget_s = 0;  // 0: none
  int max_reruns = 5;
  gate::DisturbanceRule disturbance;
  // A gate against a stored baseline: kHostSamplesPerRound samples of the host's reference workload each round,
  // before its repeats,
  // judged at each look against `base_host` (the baseline's samples; none: not judged, still measured).
  bool measure_host = false;
  result::HostReference base_host;
  // The host's speed in the baseline build's other jobs (its calibration's job_host_s): from kLeastOtherJobs of
  // them the host is judged as one more job (gate::JudgeHostAgainstJobs).
  std::vector<double> base_job_host_s;
};

struct SequentialProgress {
  std::function<void(int64_t round, size_t undecided)> round;
  std::function<void(const std::string& side, const std::string& failure)> failed;
  std::function<void(const std::string& line)> note;  // a disturbed repeat, a look's decisions
};

struct SequentialOutcome {
  result::ResultFile base, now;  // each side's repeats as one result (base: the stored one with a baseline)
  gate::Comparison comparison;   // every point at its last look
  result::HostReference host;    // this job's reference samples (measure_host)
};

// With `stored` (a baseline gate): the new side grows against it, the planned repeats the baseline's. Without
// (--ab): variants `a` and `b` alternate. `once` runs one repeat (the runner prepared it). An error: a run's result
// file could not be written.
StatusOr<SequentialOutcome> RunSequential(const GateRunner& runner, const SweepSpec& once,
                                          const result::ResultFile* stored, const Variant& a, const Variant& b,
                                          const gate::CompareOptions& compare, const SequentialOptions& options,
                                          const std::string& dir, const SequentialProgress& progress);

// The variables the two variants set (the comparison does not count them as environment drift).
std::set<std::string> VariedVariables(const Variant& a, const Variant& b);

// A result as `gate --ab`'s --out keeps it, for its exports: without samples (they stayed with the runs' files).
result::ResultFile WithoutSamples(result::ResultFile file);

}  // namespace commbench::app
