// The blocks a baseline carries beside its result, each optional and versioned on its own, and found again:
// - the calibration (docs/gate.md, "Calibration"): an A/A run's (gate --calibrate) or the first baseline's own
//   repeats (the first gate --update-baseline) made into one, the "gate_calibration" block (lib/gate/calibration.h's
//   JSON); an older BASE.calibration.json kept beside the baseline is still read;
// - the host's reference samples of the baseline's job, the "host_reference" block (lib/result/host_reference.h),
//   with which a later gate tells a host that changed from a build that did (docs/gate.md, "A host that changed").
// A baseline file without either still loads.
#pragma once

#include <memory>
#include <string>

#include "lib/app/gate_run.h"
#include "lib/core/status.h"
#include "lib/gate/calibration.h"
#include "lib/gate/compare.h"
#include "lib/result/host_reference.h"
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

// Writes `run` over (or as) the baseline `path` as KeepAsBaseline does, with `c` and `host` as its blocks when given
// (a reference without samples is not kept).
Status KeepCalibratedBaseline(const result::ResultFile& run, const gate::Calibration* c,
                              const result::HostReference* host, const std::string& path);

// The blocks a baseline carries, read from the file once.
struct BaselineBlocks {
  // The baseline's calibration; else an older BASE.calibration.json beside it (`legacy_calibration`); else null.
  std::shared_ptr<const gate::Calibration> calibration;
  bool legacy_calibration = false;
  result::HostReference host;  // no samples when it has none
};

// InvalidArgument when a block (or the older calibration file) is there but cannot be read.
StatusOr<BaselineBlocks> LoadBaselineBlocks(const std::string& baseline);

// LoadBaselineBlocks' calibration (`legacy` says it came from the older file).
StatusOr<std::shared_ptr<const gate::Calibration>> LoadCalibration(const std::string& baseline, bool* legacy = nullptr);

}  // namespace commbench::app
