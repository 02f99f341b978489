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

std::optional<int64_t> ParseSchedNrMigrations(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string key, colon;
    long long n = 0;
    if (!(fields >> key) || key != "se.nr_migrations") continue;
    if (!(fields >> colon >> n) || colon != ":" || n < 0) return std::nullopt;
    return static_cast<int64_t>(n);
  }
  return std::nullopt;
}

std::optional<int64_t> ThreadMigrations() {
  std::ifstream f("/proc/thread-self/sched");
  if (!f) return std::nullopt;
  std::ostringstream text;
  text << f.rdbuf();
  return ParseSchedNrMigrations(text.str());
}

}  // namespace commbench
