// `commbench sweep` under a launcher (srun, mpirun, torchrun, a PyTorchJob): SPMD mode (lib/launch/spmd.h).
#pragma once

#include <optional>
#include <string>

#include "lib/core/status.h"
#include "lib/launch/launcher_env.h"
#include "tools/commbench/sweep_flags.h"

namespace commbench::cli {

// This process's place when a launcher started it as one of several ranks (or --rank/--world say so), and the
// sweep's own launcher is `local`; nullopt for the driver's usual run. InvalidArgument names a bad variable.
StatusOr<std::optional<LaunchPlace>> SpmdPlace(const SpmdFlags& flags, const SweepSpec& spec);

// Runs the sweep as one rank of `place`: rank 0 plans, runs its rank and collects everyone's samples, and writes
// the outputs; the others run their ranks and write nothing. Exit codes as ExecuteSweep, and 3 on every rank
// when some rank never arrived at the rendezvous.
int ExecuteSpmdSweep(const SweepSpec& spec, const OutputFlags& outputs, const SpmdFlags& flags,
                     const LaunchPlace& place, const std::string& command);

}  // namespace commbench::cli
