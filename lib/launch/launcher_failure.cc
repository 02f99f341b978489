#include "lib/launch/launcher_failure.h"

#include <regex>

namespace commbench {
namespace {

// OpenMPI: "mpirun noticed that process rank 1 with PID 0 on node vm exited on signal 9 (Killed)."
std::optional<LauncherFailure> MpirunSignal(const std::string& text) {
  static const std::regex re(R"(process rank (\d+) with PID \d+ on node (\S+) exited on signal (\d+)( \(([^)]*)\))?)");
  std::smatch m;
  if (!std::regex_search(text, m, re)) return std::nullopt;
  std::string what = "was killed by signal " + m[3].str();
  if (m[5].matched) what += " (" + m[5].str() + ")";
  return LauncherFailure{std::stoi(m[1].str()), m[2].str(), what};
}

// OpenMPI: "The first process to do so was:\n\n  Process name: [[17096,1],2]\n  Exit code:    3".
std::optional<LauncherFailure> MpirunExitCode(const std::string& text) {
  static const std::regex re(R"(Process name: \[\[\d+,\d+\],(\d+)\]\s+Exit code:\s+(\d+))");
  std::smatch m;
  if (!std::regex_search(text, m, re)) return std::nullopt;
  return LauncherFailure{std::stoi(m[1].str()), "", "exited with code " + m[2].str()};
}

// Slurm: "srun: error: h1: task 3: Killed", "srun: error: h1: tasks 2-3: Exited with exit code 1".
std::optional<LauncherFailure> Srun(const std::string& text) {
  static const std::regex re(R"(srun: error: (\S+): tasks? (\d+)[^:]*: ([^\n]+))");
  std::smatch m;
  if (!std::regex_search(text, m, re)) return std::nullopt;
  std::string what = m[3].str();
  if (what == "Killed") {
    what = "was killed";
  } else if (what.rfind("Exited with exit code ", 0) == 0) {
    what = "exited with code " + what.substr(22);
  } else {
    what = "failed: " + what;
  }
  return LauncherFailure{std::stoi(m[2].str()), m[1].str(), what};
}

}  // namespace

std::optional<LauncherFailure> ParseLauncherFailure(const std::string& output) {
  try {
    if (auto f = MpirunSignal(output)) return f;
    if (auto f = MpirunExitCode(output)) return f;
    return Srun(output);
  } catch (const std::exception&) {  // a rank number past int: not a rank the driver started
    return std::nullopt;
  }
}

}  // namespace commbench
