// What this runner's noise lets the gate detect, measured before any change is judged (`gate --calibrate`, docs/
// gate.md "Calibration"): from an A/A run (the same build both sides, alternating), per point the spread of one
// repeat, the change the budget's repeats can detect at the last look, the false-alarm rate to expect, and whether
// the point is gateable at its floor here (else the repeats it would need). Kept beside the baseline
// (BASE.calibration.json) and shown with every comparison against it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/core/status.h"
#include "lib/gate/compare.h"
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
};

struct Calibration {
  std::vector<PointCalibration> points;
  double round_s = 0;  // wall-clock seconds of one round of every point (the A/A run's mean)
  double budget_s = 0;
  LookSchedule schedule;
  double alpha = 0.01;
};

// The calibration of an A/A run (`a`, `b`: each side's repeats) that took `elapsed_s` over `rounds`.
Calibration Calibrate(const result::ResultFile& a, const result::ResultFile& b, double elapsed_s, int64_t rounds,
                      double budget_s, const LookSchedule& schedule, const CompareOptions& options);

nlohmann::json CalibrationToJson(const Calibration& c);
StatusOr<Calibration> CalibrationFromJson(const nlohmann::json& j, const std::string& path);

// BASE.json -> BASE.calibration.json (any other name: NAME.calibration.json).
std::string CalibrationPath(const std::string& baseline);

// One line per point, for the terminal.
std::string CalibrationToText(const Calibration& c);

}  // namespace commbench::gate
