// `commbench sweep` under a launcher (srun, mpirun, torchrun, a PyTorchJob): SPMD mode (lib/launch/spmd.h).
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "lib/core/status.h"
#include "lib/launch/launcher_env.h"
#include "lib/launch/spmd.h"
#include "tools/commbench/sweep_flags.h"

namespace commbench::cli {

// This process's place when a launcher started it as one of several ranks (or --rank/--world say so), and the
// sweep's own launcher is `local`; nullopt for the driver's usual run. InvalidArgument names a bad variable, or
// says what is missing when --rendezvous is given without a launcher's variables or --rank/--world.
StatusOr<std::optional<LaunchPlace>> SpmdPlace(const SpmdFlags& flags, const SweepSpec& spec);

// What rank 0 does once every rank arrived: run the work through the session and return the exit code, setting
// `failure` to what the other ranks should be told ("" when the run completed).
using Rank0Work = std::function<int(SpmdSession& session, std::string* failure)>;

// Joins the run as one rank of `place` (store, arrival; a rank that never arrives: exit 3 on every rank), then rank
// 0 does `work` while the others follow it. Never returns: the process exits with the code (a rank thread may
// still be blocked in a collective whose peer died). `problem`: what this rank found wrong with its host before
// anything ran (published with its arrival; acceptance's pre-flight), "" for none.
[[noreturn]] void RunAsSpmdRank(const SweepSpec& spec, const SpmdFlags& flags, const LaunchPlace& place, bool quiet,
                                const std::string& problem, const Rank0Work& work);

// Runs the sweep as one rank of `place`: rank 0 plans, runs its rank and collects everyone's samples, and writes
// the outputs; the others run their ranks and write nothing. Exit codes as ExecuteSweep, and 3 on every rank
// when some rank never arrived at the rendezvous.
int ExecuteSpmdSweep(const SweepSpec& spec, const OutputFlags& outputs, const SpmdFlags& flags,
                     const LaunchPlace& place, const std::string& command);

}  // namespace commbench::cli
