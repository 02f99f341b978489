#include "lib/launch/launcher_env.h"

#include <cerrno>
#include <cstdlib>
#include <vector>

namespace commbench {
namespace {

struct Convention {
  const char *source;
  const char *rank;
  const char *world;
  const char *local_rank;
  const char *local_world;
};

constexpr Convention kConventions[] = {
    {"torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"},
    {"openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
     "OMPI_COMM_WORLD_LOCAL_SIZE"},
    {"mpich", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"},
    {"slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", nullptr},
};

// A whole number >= 0 from variable `name`, or an error naming it and its
// value.
StatusOr<int> ReadCount(const char *name, const char *value) {
  errno = 0;
  char *end = nullptr;
  long v = std::strtol(value, &end, 10);
  if (end == value || *end != '\0' || errno != 0 || v < 0 || v > 1000000) {
    return InvalidArgument(std::string(name) + "='" + value + "' is not a rank or size (accepted: a whole number " +
                           "from 0 to 1000000)");
  }
  return static_cast<int>(v);
}

// -1 when unset.
StatusOr<int> ReadOptional(const EnvLookup &env, const char *name) {
  if (name == nullptr) return -1;
  const char *v = env(name);
  if (v == nullptr) return -1;
  return ReadCount(name, v);
}

StatusOr<std::optional<LaunchPlace>> FromConvention(const EnvLookup &env, const Convention &c) {
  const char *rank = env(c.rank);
  const char *world = env(c.world);
  if (rank == nullptr && world == nullptr) return std::optional<LaunchPlace>();
  // Inside salloc or a batch script Slurm sets SLURM_NTASKS for the allocation; only srun's tasks get a
  // SLURM_PROCID. That is not a launched rank (`--launcher srun` runs from there).
  if (rank == nullptr && std::string(c.source) == "slurm") return std::optional<LaunchPlace>();
  if (rank == nullptr || world == nullptr) {
    const char *set = rank ? c.rank : c.world;
    const char *unset = rank ? c.world : c.rank;
    return InvalidArgument(std::string(set) + " is set but " + unset + " is not (" + c.source +
                           "'s convention needs both; or give --rank and --world)");
  }
  LaunchPlace p;
  p.source = c.source;
  ASSIGN_OR_RETURN(p.rank, ReadCount(c.rank, rank));
  ASSIGN_OR_RETURN(p.world, ReadCount(c.world, world));
  ASSIGN_OR_RETURN(p.local_rank, ReadOptional(env, c.local_rank));
  ASSIGN_OR_RETURN(p.local_world, ReadOptional(env, c.local_world));
  return std::optional<LaunchPlace>(p);
}

}  // namespace

StatusOr<LaunchPlace> DetectLaunchPlace(const EnvLookup &env, const PlaceOverrides &overrides) {
  std::optional<LaunchPlace> found;
  for (const Convention &c : kConventions) {
    ASSIGN_OR_RETURN(found, FromConvention(env, c));
    if (found) break;
  }
  if (!found && !(overrides.rank && overrides.world)) {
    return NotFound(
        "no launcher variables (RANK/WORLD_SIZE, "
        "OMPI_COMM_WORLD_*, PMI_*, SLURM_PROCID/SLURM_NTASKS) "
        "and no --rank/--world");
  }
  LaunchPlace p = found.value_or(LaunchPlace{});
  if (overrides.rank) p.rank = *overrides.rank;
  if (overrides.world) p.world = *overrides.world;
  if (overrides.rank || overrides.world) p.source = found ? p.source + "+flags" : "flags";
  if (p.world < 1) return InvalidArgument("world size " + std::to_string(p.world) + " (accepted: 1 or more)");
  if (p.rank < 0 || p.rank >= p.world) {
    return InvalidArgument("rank " + std::to_string(p.rank) + " is outside a world of " + std::to_string(p.world) +
                           " (from " + p.source + "; accepted: 0 to " + std::to_string(p.world - 1) + ")");
  }
  return p;
}

std::string RunIdFromEnv(const EnvLookup &env) {
  auto get = [&env](const char *name) -> std::string {
    const char *v = env(name);
    return v ? v : "";
  };
  struct Source {
    const char *prefix;
    std::vector<const char *> variables;  // all must be set
  };
  const Source sources[] = {
      {"torchrun-", {"TORCHELASTIC_RUN_ID"}},
      {"slurm-", {"SLURM_JOB_ID", "SLURM_STEP_ID"}},
      {"ompi-", {"OMPI_MCA_ess_base_jobid"}},
      {"pmix-", {"PMIX_NAMESPACE"}},
      {"pmi-", {"PMI_KVSNAME"}},
      {"master-", {"MASTER_ADDR", "MASTER_PORT"}},
  };
  for (const Source &s : sources) {
    std::string id;
    for (const char *v : s.variables) {
      if (get(v).empty()) {
        id.clear();
        break;
      }
      id += (id.empty() ? "" : ".") + get(v);
    }
    if (!id.empty()) return s.prefix + id;
  }
  return "";
}

EnvLookup ProcessEnv() {
  return [](const char *name) { return static_cast<const char *>(std::getenv(name)); };
}

std::string TorchStoreNote(const EnvLookup &env, bool rendezvous_given) {
  if (rendezvous_given || env("MASTER_ADDR") == nullptr) return "";
  std::string at = std::string(env("MASTER_ADDR")) + (env("MASTER_PORT") ? ":" + std::string(env("MASTER_PORT")) : "");
  return "MASTER_ADDR/MASTER_PORT (" + at + ") name PyTorch's TCP store, which commbench does not speak: " +
         "give --rendezvous redis://HOST:PORT or --rendezvous file:/shared/dir";
}

}  // namespace commbench
