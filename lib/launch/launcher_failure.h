// Which rank a launcher (mpirun, srun) says failed first, read from its own output: the launcher reports only
// its own exit status to the driver, and it stops the other ranks before it exits.
#pragma once

#include <optional>
#include <string>

namespace commbench {

struct LauncherFailure {
  int process = -1;  // the launcher's rank (commbench's process index)
  std::string host;  // "" when the launcher did not say
  std::string what;  // "was killed by signal 9 (Killed)", "exited with code 3"
};

// The first failed process named in mpirun's (OpenMPI) or srun's output; nothing when the text names none.
std::optional<LauncherFailure> ParseLauncherFailure(const std::string& output);

}  // namespace commbench
