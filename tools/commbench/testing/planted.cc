#include "tools/commbench/testing/planted.h"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <thread>
#include <utility>

#include "tools/commbench/testing/cli_runner.h"

namespace commbench::testing {

nlohmann::json RunSweep(const std::vector<std::string>& args, double* seconds) {
  CliRunner cli;
  const std::string out = cli.dir() + "/planted.json";
  std::vector<std::string> full = {"sweep", "--quiet", "-o", out};
  full.insert(full.end(), args.begin(), args.end());
  auto t0 = std::chrono::steady_clock::now();
  CliResult r = cli.Run(full);
  if (seconds) *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (r.exit_code != 0) return nlohmann::json::object();
  nlohmann::json result = nlohmann::json::parse(std::ifstream(out));
  EXPECT_EQ(result["status"], "complete");
  return result;
}

double HostBusyFraction(double seconds) {
  auto sample = [] {
    std::ifstream stat("/proc/stat");
    std::string cpu;
    double v, total = 0, idle = 0;
    stat >> cpu;
    for (int i = 0; i < 8 && stat >> v; ++i) {
      total += v;
      if (i == 3 || i == 4) idle += v;  // idle, iowait
    }
    return std::make_pair(total, idle);
  };
  auto a = sample();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  auto b = sample();
  double total = b.first - a.first;
  return total > 0 ? 1 - (b.second - a.second) / total : 0;
}

}  // namespace commbench::testing
