// `traffic --measure` when a launcher started every rank itself (srun, mpirun, torchrun, or --rank by hand): where
// this process is among them, and the bucket sweep run as one of them (rank 0 prints; spmd_sweep.h).
#pragma once

#include <optional>
#include <string>

#include "lib/core/status.h"
#include "lib/launch/launcher_env.h"
#include "lib/traffic/step.h"
#include "tools/commbench/spmd_sweep.h"
#include "tools/commbench/traffic_measure.h"

namespace commbench::cli {

// This process's place among the launcher's ranks, nullopt when it starts the ranks itself. InvalidArgument
// (exit 2): a --world other than the launcher's rank count, a plan that does not fit that world.
StatusOr<std::optional<LaunchPlace>> LauncherPlace(SpmdFlags* spmd, int world, PlannedMeasure* planned);

// Runs the bucket sweep as one of the launcher's ranks and exits with its code; rank 0 prints `model` and the
// measured tables. Without --rendezvous: one line naming what is missing, exit 2, nothing printed.
[[noreturn]] void MeasureAsLauncherRank(const SpmdFlags& spmd, const LaunchPlace& place, const std::string& model,
                                        const traffic::StepRequest& request, const traffic::StepTraffic& step,
                                        const MeasureRequest& run, const PlannedMeasure& planned);

}  // namespace commbench::cli
