// The calibration a baseline carries (docs/gate.md, "Calibration"): an A/A run's (gate --calibrate) or the first
// baseline's own repeats (the first gate --update-baseline) made into one, kept in the baseline file as its
// optional "gate_calibration" block (lib/gate/calibration.h's JSON, versioned on its own), and found again. A
// baseline file without the block still loads; so does an older BASE.calibration.json kept beside it.
#pragma once

#include <memory>
#include <string>

#include "lib/app/gate_run.h"
#include "lib/core/status.h"
#include "lib/gate/calibration.h"
#include "lib/gate/compare.h"
#include "lib/result/result_file.h"

namespace commbench::app {

inline constexpr const char* kCalibrationKey = "gate_calibration";

// The calibration of an A/A sequential run (`run`: both sides, every planned repeat within `budget_s`), its figures
// for gates that look on `schedule` and stop early. Unavailable, naming the failure, when a side's run failed: a
// noise figure of a broken run is no figure.
StatusOr<gate::Calibration> CalibrateAa(const SequentialOutcome& run, double budget_s,
                                        const gate::LookSchedule& schedule, const gate::CompareOptions& compare);

// Puts `c` into the baseline file `baseline` (its other content as it was), atomically.
Status StoreCalibration(const std::string& baseline, const gate::Calibration& c);

// Writes `run` over (or as) the baseline `path` as KeepAsBaseline does, with `c` as its block when given.
Status KeepCalibratedBaseline(const result::ResultFile& run, const gate::Calibration* c, const std::string& path);

// The calibration the baseline `baseline` carries; else an older BASE.calibration.json beside it (`legacy` says
// so); else null. InvalidArgument when either is there but cannot be read.
StatusOr<std::shared_ptr<const gate::Calibration>> LoadCalibration(const std::string& baseline, bool* legacy = nullptr);

}  // namespace commbench::app
