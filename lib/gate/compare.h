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
#include "lib/gate/decision.h"
#include "lib/gate/host_shift.h"
#include "lib/gate/one_more_run.h"  // kLeastOtherJobs
#include "lib/result/result_file.h"

namespace commbench::gate {

// One repeat a sequential gate measured at a point, as the disturbance rule judged it (lib/gate/disturbance.h).
struct RepeatRecord {
  std::string side;           // "A", "B" (--ab), "new" (--baseline)
  int64_t round = 0;          // the round it ran in; a re-run has its disturbed repeat's round
  bool disturbed = false;     // measured while something else held the ranks' CPUs
  bool replaced = false;      // disturbed and re-run rather than judged
  double outside_share = 0;   // outside processes' share of the ranks' CPUs over the timed window
  double runqueue_share = 0;  // the ranks' run-queue wait as a share of an operation's median time
  std::string why;            // what disturbed it; "" when nothing did
  int64_t migrations = -1;    // the most any rank moved between CPUs over its timed loop; -1: not recorded
};

// One point of a sequential gate (gate's repeats added round by round until decided, docs/gate.md): where its last
// look stood, and what its repeats went through. Compare judges the point at that look's boundary.
struct SequentialPoint {
  int looks = 0;           // looks taken at this point
  double boundary_p = -1;  // the p its rank test had to reach at the last look (DecisionOptions::boundary_p)
  double spent_alpha = 0;  // the error rate spent up to that look
  double information = 0;  // that look's information fraction (1: the planned repeats)
  bool stopped = false;    // decided before the budget or the planned repeats ran out
  int disturbed = 0;       // repeats measured while something else held the ranks' CPUs (lib/gate/disturbance.h)
  int replaced = 0;        // of those, re-run (the rest were judged, the bound reached)
  std::vector<std::string> disturbances;  // "B repeat 3: outside processes took ...", the first few
  std::vector<RepeatRecord> repeats;      // every repeat measured, in order, re-runs included
  // The repeats a side the job was to end with, as projected at the last look (the planned repeats, or fewer where
  // the budget affords fewer rounds): --min-effect auto's resolution is taken there (DecisionOptions::final_base).
  int64_t final_base = 0, final_now = 0;
};

// Where more than this share of one side's judged repeats of a point were disturbed (judged: the re-run bound was
// reached), the verdict there (a change, or none) is the busy runner's as much as the build's: the point is
// inconclusive, unless the load was one both --ab sides shared (SharedSteadyLoad).
inline constexpr double kMostJudgedDisturbed = 0.10;

// "new: 80 of 80 judged repeats disturbed": the first side past kMostJudgedDisturbed, or "" when none is.
std::string JudgedOnDisturbed(const SequentialPoint& s);

// gate --ab interleaves its sides (A B A B ...), so a load that stays for the whole job weighs on both alike. Where
// at least kSteadyLoadShare of each side's judged repeats were disturbed and the two shares differ by at most
// kAlikeLoadShares, the load was the runner's steady state, shared by both sides: the point is judged (and says
// so). A load on one side only, or one that came and went, stays "the runner was busy".
inline constexpr double kSteadyLoadShare = 0.5;
inline constexpr double kAlikeLoadShares = 0.10;

// "A: 80 of 80, B: 79 of 80 judged repeats disturbed" where the load was shared as above, else "". Only --ab's
// sides A and B can share one: a stored baseline's repeats ran in another job.
std::string SharedSteadyLoad(const SequentialPoint& s);

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
