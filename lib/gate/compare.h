// `commbench compare`: a new result against a baseline, point by point (matched by the planner's stable point id,
// which names every axis), each point's repeats (fresh launches) judged by the decision in decision.h. It fails
// closed: a point on one side only, a side with too few repeats, a file that ended early, or an environment that
// differs in something that changes timings makes the comparison inconclusive or incomparable, never a pass.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "lib/core/name_table.h"
#include "lib/core/status.h"
#include "lib/gate/busy_runner.h"  // SequentialPoint
#include "lib/gate/decision.h"
#include "lib/gate/host_shift.h"
#include "lib/gate/one_more_run.h"  // kLeastOtherJobs
#include "lib/result/result_file.h"

namespace commbench::gate {

// A sequential gate as a whole: what bounded it and how far it got.
struct SequentialRun {
  double budget_s = 0;   // 0: none
  double elapsed_s = 0;  // the rounds' wall-clock time
  int64_t rounds = 0;
  int64_t planned_repeats = 0;  // a side, the most (--repeats)
  int64_t first_look = 0, look_every = 0;
  int max_reruns = 0;           // disturbed repeats re-run per point, at most
  std::string stopped_because;  // "every point decided", "the budget of 240 s was spent", ...
};

struct Calibration;  // calibration.h: this runner's A/A noise, kept beside a baseline

struct CompareOptions {
  DecisionOptions decision;
  // Floors by message size: a point smaller than a key uses that key's floor (the smallest such key), the others
  // decision.min_effect. Small messages are latency-bound and noisier, so a CI owner may accept a wider floor.
  std::map<uint64_t, double> min_effect_below;
  // --min-effect auto: each point's floor is what its repeats resolve in the job (DecisionOptions::auto_floor; with
  // a calibration, at least the change the calibration's budget detects), never below the floors above.
  bool auto_floor = false;
  // What the baseline's calibration (gate --calibrate) found the budget detects, by point: with auto_floor, the
  // least floor there (set from `calibration` by the gate; compare.cc does not read Calibration's points).
  std::map<std::string, double> calibrated_floor;
  // gate --ab: the two sides' repeats are paired by round; the pairs are judged where their interval is tighter.
  bool paired = false;
  bool allow_env_drift = false;  // compare even when the environments differ (the differences are still listed)
  // Variables the two sides set differently on purpose (gate --ab's variants): listed, never drift.
  std::set<std::string> varied_variables;
  // A sequential gate's looks, by point id: the point is judged at its last look's boundary. Empty: one look at
  // alpha (compare, and files judged after the fact).
  std::map<std::string, SequentialPoint> sequential;
  std::optional<SequentialRun> sequential_run;
  std::shared_ptr<const Calibration> calibration;  // the baseline's calibration, shown with the comparison
  // The base side holds one value per run of main (gate --history): the new job is judged as one more run
  // (one_more_run.h), not repeat by repeat.
  bool base_is_runs = false;
  // A stored baseline's other jobs of its build, by point (each job's median repeat, in us: gate --calibrate's
  // A/A jobs, run apart in time). Jobs drift apart more than one job's repeats tell, so with at least
  // kLeastOtherJobs of them the new job is judged as one more job of the baseline's build (one_more_run.h), the
  // baseline's own job among them; with fewer, repeat by repeat.
  std::map<std::string, std::vector<double>> base_jobs_us;
  // A gate against a stored baseline: the host's move since the baseline's job (host_shift.h). Each point is judged
  // with a moved host's ratio taken out; absent (compare, --ab), nothing is.
  std::optional<HostShift> host;
};

struct EnvDifference {
  std::string key;        // "cpu_model", "variables.NCCL_ALGO", "backends.gloo.version", ...
  std::string base, now;  // "" when absent on that side
};

struct PointComparison {
  std::string id;
  Point point;
  std::vector<double> base_us, now_us;  // the p50 of each repeat (result::RepeatMedians)
  Decision decision;
  std::string problem;        // fail-closed reason for this point ("only in the baseline", a wrong result, ...)
  bool wrong_result = false;  // the new side computed a wrong result: a failure whatever its time
  std::optional<SequentialPoint> sequential;  // a sequential gate's looks at this point
};

enum class Outcome { kPass, kRegression, kInconclusive, kIncomparable };
inline constexpr NameTable<Outcome, 4> kOutcomeNames = {{
    {Outcome::kPass, "pass"},
    {Outcome::kRegression, "regression"},
    {Outcome::kInconclusive, "inconclusive"},
    {Outcome::kIncomparable, "incomparable"},
}};

inline std::string Name(Outcome o) { return std::string(NameOf(kOutcomeNames, o)); }

struct Comparison {
  std::vector<PointComparison> points;
  std::vector<std::string> problems;  // file-level: a partial file, missing points, ...
  std::vector<EnvDifference> environment;
  Outcome outcome = Outcome::kInconclusive;
  CompareOptions options;  // what it was decided with: the outputs show the minimum effect and alpha
  // 0 no regression, 1 a regression or a wrong result, 3 inconclusive or incomparable (2 is bad input, earlier).
  int ExitCode() const;
};

// A difference in a variable the two sides set differently on purpose (CompareOptions::varied_variables).
bool IsVaried(const EnvDifference& d, const CompareOptions& options);

// The environment differences that can change timings (CPU, cores and affinity, OS, backend and GPU software
// versions, NCCL_/GLOO_/CUDA_/OMP_ variables); the host name is not one: CI runners differ by name.
std::vector<EnvDifference> TimingRelevantDifferences(const nlohmann::json& base, const nlohmann::json& now);

// The floor for a point of `bytes` (see CompareOptions::min_effect_below).
double MinEffectFor(const CompareOptions& options, uint64_t bytes);

// --min-effect F and --min-effect-below SIZE=F (each F a fraction in (0, 1), SIZE a byte count such as 4K), checked
// and set in `options`; InvalidArgument names the bad value and what is accepted.
Status SetMinEffects(double min_effect, const std::vector<std::string>& below, CompareOptions* options);

// --min-effect as given: a fraction in (0, 1), "auto" (auto_floor, least floor 0.05) or "auto:F" (least floor F);
// then as SetMinEffects above.
Status SetMinEffects(const std::string& min_effect, const std::vector<std::string>& below, CompareOptions* options);

Comparison Compare(const result::ResultFile& base, const result::ResultFile& now, const CompareOptions& options = {});

// What Compare cannot judge, refused as bad input (exit 2) rather than decided on: a per-repeat median (or, with no
// repeats recorded, time_us.p50) that is not a finite time > 0, and, in a file of schema_version 3 (which keeps a
// point's repeats in its one entry), a point id given twice. One line: "PATH: point ID: FIELD is VALUE (accepted:
// ...)"; `path` names the file.
Status CheckComparable(const result::ResultFile& file, const std::string& path);

// result::LoadResultFile (which refuses a key given twice in one object) and then CheckComparable.
StatusOr<result::ResultFile> LoadComparable(const std::string& path);

}  // namespace commbench::gate
