// `commbench gate --calibrate` (gate.h): A/A rounds on this runner, the calibration (lib/app/gate_calibrate.h)
// written with the baseline, one line per point on stdout, exit 3 when a point is ungateable here.
#include "lib/app/gate_calibrate.h"

#include <cmath>
#include <cstdio>
#include <string>

#include "lib/app/gate_run.h"
#include "lib/core/atomic_file.h"
#include "lib/gate/calibration.h"
#include "lib/gate/host_shift.h"
#include "tools/commbench/command_line.h"
#include "tools/commbench/gate.h"

namespace commbench::cli {
int RunCalibration(const GateOptions& o, const SweepSpec& given) {
  if (!PathExists(o.baseline)) {
    return ErrorExit("--calibrate: " + o.baseline +
                     ": no such baseline (accepted: an existing baseline file, which keeps "
                     "the calibration; measure the first with --update-baseline, which calibrates from its repeats)");
  }
  Status s = CheckWritableOutput(o.baseline);
  if (!s.ok()) return ErrorExit(s.message());
  auto gate = app::LoadBaselineGate(o.baseline, given, *ToSpec(SweepFlags{}));
  if (!gate.ok()) return ErrorExit(gate.status().message());
  const SweepSpec& spec = gate->spec;
  // This job is one more of the baseline's build: the jobs before it (an earlier --calibrate's) stay beside it.
  // Read before the A/A rounds, so that a broken block is said before they run.
  auto before = app::LoadBaselineBlocks(o.baseline);
  if (!before.ok()) return ErrorExit(before.status().message());
  auto sequential = SequentialFrom(o, spec.repeats, false);
  if (!sequential.ok()) return ErrorExit(sequential.status().message());
  // The host's speed in this job, taken between rounds as a gate takes it: with the jobs', a later gate judges
  // the host as one more job (nothing to judge it against here, so nothing stops the rounds).
  sequential->measure_host = true;
  auto run = RunRounds(o, spec, "--calibrate: ", "A/A, up to " + std::to_string(spec.repeats) + " repeats a side",
                       nullptr, {}, {}, o.compare, *sequential);
  if (!run.ok()) return ErrorExit(run.status().message());
  auto calibrated = app::CalibrateAa(*run, o.budget_s, sequential->schedule, o.compare);
  if (!calibrated.ok()) {  // a noise figure of a broken run is no figure
    std::fprintf(stderr, "commbench gate: no calibration written: %s\n", calibrated.status().message().c_str());
    return 3;
  }
  const double host = gate::HostSpeed(run->host);
  calibrated->job_host_s = {std::isfinite(host) ? host : 0.0};  // one a job, so that jobs and hosts align
  gate::AddJobs(before->calibration.get(), gate->base, gate::HostSpeed(before->host), o.compare, &*calibrated);
  const gate::Calibration& c = *calibrated;
  s = app::StoreCalibration(o.baseline, c);
  if (!s.ok()) return ErrorExit(s.message());
  std::fputs(gate::CalibrationToText(c).c_str(), stdout);
  std::fprintf(stderr, "commbench gate: kept the calibration in the baseline %s (its \"%s\" block)\n",
               o.baseline.c_str(), app::kCalibrationKey);
  if (PathExists(gate::CalibrationPath(o.baseline))) {
    std::fprintf(stderr, "commbench gate: %s is no longer read (the baseline's block comes first): delete it\n",
                 gate::CalibrationPath(o.baseline).c_str());
  }
  for (const gate::PointCalibration& p : c.points) {
    if (!p.gateable) return 3;
  }
  return c.points.empty() ? 3 : 0;
}

}  // namespace commbench::cli
