#include "lib/measure/run_queue.h"

#include <fstream>
#include <sstream>

namespace commbench {

std::optional<double> ParseSchedstatRunDelayS(const std::string& text) {
  std::istringstream in(text);
  unsigned long long on_cpu_ns = 0, run_delay_ns = 0;
  if (!(in >> on_cpu_ns >> run_delay_ns)) return std::nullopt;
  return static_cast<double>(run_delay_ns) * 1e-9;
}

std::optional<double> ThreadRunQueueWaitS() {
  std::ifstream f("/proc/thread-self/schedstat");
  if (!f) return std::nullopt;
  std::string line;
  std::getline(f, line);
  return ParseSchedstatRunDelayS(line);
}

}  // namespace commbench
