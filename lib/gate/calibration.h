// What this runner's noise lets the gate detect, measured before any change is judged (`gate --calibrate`, docs/
// gate.md "Calibration"): from an A/A run (the same build both sides, alternating), per point the spread of one
// repeat, the change the budget's repeats can detect at the last look, the false-alarm rate to expect, and whether
// the point is gateable at its floor here (else the repeats it would need). Kept in the baseline file (its
// "gate_calibration" block, lib/app/gate_calibrate.h) and shown with every comparison against it.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "lib/core/name_table.h"
#include "lib/core/status.h"
#include "lib/gate/compare.h"
#include "lib/gate/host_shift.h"       // kHostTolerance
#include "lib/gate/sequential_gate.h"  // LookSchedule

namespace commbench::gate {

struct PointCalibration {
  std::string id;
  int64_t repeats = 0;         // a side, in the A/A run
  double spread = 0;           // relative spread of one repeat (MAD x 1.4826 / median, the larger side's)
  double aa_ratio = 0;         // median(B) / median(A) of the A/A run
  int64_t budget_repeats = 0;  // a side, that the budget affords (at the A/A run's round time), at most planned
  double detectable = 0;       // the smallest change those repeats detect at the last look's boundary
  double min_effect = 0;       // the point's floor
  double false_alarm = 0;      // expected: the alpha spent by the last look, halved (only "slower" fails)
  bool gateable = false;       // detectable <= min_effect
  int64_t repeats_needed = 0;  // a side, for detectable <= min_effect (when not gateable; -1: more than 100000)
  // Against a stored baseline, jobs apart in time: the median repeat (us) of each A/A job of the baseline's build,
  // oldest first (every gate --calibrate adds its own; a new baseline, another build, starts none). With the
  // baseline's own job, their spread and what a gate judging a job as one more of them can detect (infinite
  // below 3 jobs); a point whose job_detectable exceeds its floor is not gateable against a stored baseline here.
  std::vector<double> job_medians_us;
  double job_spread = 0;      // the jobs' relative spread (standard deviation of their logs); NaN below 3 jobs
  double job_detectable = 0;  // infinite below 3 jobs
  size_t jobs_left_out = 0;   // of job_medians_us, those in a spell of the host (SteadyJobs): not in the figures
};

// The most jobs a calibration keeps (the latest): enough for a t of few degrees of freedom, little to store.
inline constexpr size_t kMostCalibrationJobs = 20;

// What the spread was measured on: A/A rounds (gate --calibrate), or the first baseline's own repeats (the first
// gate --update-baseline: one side, so no A/A ratio).
enum class CalibrationSource { kAa, kBaselineRepeats };
inline constexpr NameTable<CalibrationSource, 2> kCalibrationSourceNames = {{
    {CalibrationSource::kAa, "aa"},
    {CalibrationSource::kBaselineRepeats, "baseline-repeats"},
}};

struct Calibration {
  CalibrationSource source = CalibrationSource::kAa;
  std::vector<PointCalibration> points;
  double round_s = 0;  // wall-clock seconds of one round of every point (the A/A run's mean)
  double budget_s = 0;
  LookSchedule schedule;
  double alpha = 0.01;
  // The host's speed in each A/A job of the baseline's build (host_shift.h's HostSpeed of its reference samples,
  // seconds), oldest first, as job_medians_us: with the baseline's own, the host is judged as one more job too.
  std::vector<double> job_host_s;  // 0: that job measured none
};

// The calibration of an A/A run (`a`, `b`: each side's repeats) that took `elapsed_s` over `rounds`.
Calibration Calibrate(const result::ResultFile& a, const result::ResultFile& b, double elapsed_s, int64_t rounds,
                      double budget_s, const LookSchedule& schedule, const CompareOptions& options);

// The same figures from one side's repeats (`runs`, `rounds` of every point in `elapsed_s`): the spread of a repeat
// and what the budget detects with it; no A/A ratio (NaN). Source kBaselineRepeats.
Calibration CalibrateOneSide(const result::ResultFile& runs, double elapsed_s, int64_t rounds, double budget_s,
                             const LookSchedule& schedule, const CompareOptions& options);

// A later A/A job (`now`, from Calibrate, its job_host_s its own host speed, 0 if not measured) of the baseline
// `baseline`'s build (its host speed `base_host_s`, HostSpeed of its reference; NaN: none): keeps `before`'s jobs
// ahead of its own (at most kMostCalibrationJobs, the latest), and tells, with the baseline's own job, the jobs'
// spread, what they detect and whether each point is gateable against the stored baseline (`options`: the floors and
// alpha).
void AddJobs(const Calibration* before, const result::ResultFile& baseline, double base_host_s,
             const CompareOptions& options, Calibration* now);

// `c` for a new baseline (another build): its jobs were the old build's, so none are kept.
Calibration WithoutJobs(Calibration c);

// The jobs a gate judges against: those whose host ran as the others' did, within kHostTolerance of the median
// host speed (the baseline's among them; a job that measured none is kept). A job taken in a spell the host's
// reference saw (on this VM one calibration job of six read the host 32 % slower, every point 15-20 % slower) is
// the host rule's to catch in a gate, not drift of the points: counted, it spread the jobs to 5.3-6.7 %.
struct JobsToJudge {
  std::map<std::string, std::vector<double>> medians_us;  // by point, for CompareOptions::base_jobs_us
  std::vector<double> host_s;                             // for JudgeHostAgainstJobs (those that measured it)
  size_t left_out = 0;
};
JobsToJudge SteadyJobs(const Calibration& c, double base_host_s);

// The point's calibration, or null.
const PointCalibration* Find(const Calibration& c, const std::string& id);

nlohmann::json CalibrationToJson(const Calibration& c);
StatusOr<Calibration> CalibrationFromJson(const nlohmann::json& j, const std::string& path);

// BASE.json -> BASE.calibration.json (any other name: NAME.calibration.json): where gate --calibrate kept it before
// the baseline file did; still read when the baseline has none (lib/app/gate_calibrate.h).
std::string CalibrationPath(const std::string& baseline);

// One line per point, for the terminal.
std::string CalibrationToText(const Calibration& c);
// Why a point is not gateable here: "a repeat spreads 15.0%, 160 repeats a side detect 18.9% (floor 5%); it would
// need 2000 repeats a side"; "" for one that is.
std::string UngateableText(const PointCalibration& p);

}  // namespace commbench::gate
