#include "tools/commbench/testing/planted.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <utility>

#include "tools/commbench/testing/cli_runner.h"

namespace commbench::testing {
namespace {

// CPU-seconds the host has spent on anything but idling, since boot.
double HostBusyCpuS() {
  std::ifstream stat("/proc/stat");
  std::string cpu;
  double v, busy = 0;
  stat >> cpu;
  for (int i = 0; i < 8 && stat >> v; ++i) {
    if (i != 3 && i != 4) busy += v;  // all but idle and iowait
  }
  return busy / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

// CPU-seconds of this process and of the descendants it has reaped (each of which counted its own reaped ones).
double OwnTreeCpuS() {
  double s = 0;
  for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage u{};
    ::getrusage(who, &u);
    s += static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
  }
  return s;
}

}  // namespace

nlohmann::json RunSweep(const std::vector<std::string>& args, double* seconds, OutsideWitness* witness) {
  CliRunner cli;
  const std::string out = cli.dir() + "/planted.json";
  std::vector<std::string> full = {"sweep", "--quiet", "-o", out, "--no-html"};
  // The A/Bs only where a test asks for them (--explain): a plain sweep's findings stay suspected.
  if (std::find(args.begin(), args.end(), "--explain") == args.end()) full.push_back("--no-explain");
  full.insert(full.end(), args.begin(), args.end());
  const double host0 = HostBusyCpuS(), own0 = OwnTreeCpuS();
  auto t0 = std::chrono::steady_clock::now();
  CliResult r = cli.Run(full);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (seconds) *seconds = wall_s;
  if (witness) {
    witness->wall_s = wall_s;
    witness->outside_cpu_s = std::max((HostBusyCpuS() - host0) - (OwnTreeCpuS() - own0), 0.0);
  }
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (r.exit_code != 0) return nlohmann::json::object();
  nlohmann::json result = nlohmann::json::parse(std::ifstream(out));
  EXPECT_EQ(result["status"], "complete");
  return result;
}

}  // namespace commbench::testing
