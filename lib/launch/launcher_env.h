// Where a rank started by someone else's launcher (srun, mpirun, torchrun, a
// Kubernetes PyTorchJob) finds its place: its rank, the world and its local
// rank, from the variables that launcher sets. Pure over an environment lookup,
// so that every launcher's convention is tested here without the launcher.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "lib/core/status.h"

namespace commbench {

struct LaunchPlace {
  int rank = 0;
  int world = 1;
  int local_rank = -1;  // -1: the launcher does not say
  int local_world = -1;
  std::string source;  // which convention it came from: "flags", "torchrun",
                       // "openmpi", "mpich", "slurm"
};

// Returns the value of a variable, or nullptr when unset (getenv's contract).
using EnvLookup = std::function<const char *(const char *)>;

// --rank / --world given on the command line; they override what the
// environment says.
struct PlaceOverrides {
  std::optional<int> rank, world;
};

// The place from the first convention whose rank and world variables are set,
// innermost launcher first (a launcher started inside another's allocation sets
// its own variables beside the outer ones):
//   1. torchrun / PyTorchJob: RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE
//   2. Open MPI: OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK, _LOCAL_SIZE
//   3. MPICH / Hydra (PMI): PMI_RANK, PMI_SIZE, MPI_LOCALRANKID,
//   MPI_LOCALNRANKS
//   4. Slurm: SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID
// then the overrides. NotFound when neither the environment nor the overrides
// name a rank and a world (not a launched rank); InvalidArgument, naming the
// variable and its value, when one is not a number, a convention is half set (a
// rank without a world), or the rank is outside the world.
StatusOr<LaunchPlace> DetectLaunchPlace(const EnvLookup &env, const PlaceOverrides &overrides = {});

// An id that every rank of one launch sees alike and the next launch does not, from the launcher's job
// variables (torchrun's run id, Slurm's job and step, Open MPI's job, PMIx's namespace, MPICH's KVS name, then
// MASTER_ADDR:MASTER_PORT); "" when none is set (then --run-id must say).
std::string RunIdFromEnv(const EnvLookup &env);

// The real environment.
EnvLookup ProcessEnv();

// One line when only torchrun's MASTER_ADDR / MASTER_PORT say where to meet:
// that is PyTorch's own TCP store, which commbench does not speak; the line
// names the --rendezvous choices. Empty otherwise.
std::string TorchStoreNote(const EnvLookup &env, bool rendezvous_given);

}  // namespace commbench
