#include "lib/measure/environment_probe.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "lib/core/temp_dir.h"

namespace commbench {
namespace {

namespace fs = std::filesystem;

void Write(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << text << "\n";
}

// A guest with the haltpoll driver, polling off, its halting state switched off, and no cpufreq.
TEST(CpuPowerFacts, AGuestsHaltPollingAndDisabledStates) {
  TempDir sys("cpu-power-");
  Write(sys.path() + "/devices/system/cpu/cpuidle/current_driver", "haltpoll");
  Write(sys.path() + "/devices/system/cpu/cpuidle/current_governor", "haltpoll");
  Write(sys.path() + "/module/haltpoll/parameters/guest_halt_poll_ns", "0");
  Write(sys.path() + "/devices/system/cpu/cpu0/cpuidle/state0/name", "POLL");
  Write(sys.path() + "/devices/system/cpu/cpu0/cpuidle/state0/disable", "0");
  Write(sys.path() + "/devices/system/cpu/cpu0/cpuidle/state1/name", "haltpoll idle");
  Write(sys.path() + "/devices/system/cpu/cpu0/cpuidle/state1/disable", "1");
  const nlohmann::json f = CpuPowerFacts(sys.path());
  EXPECT_EQ(f["idle_driver"], "haltpoll");
  EXPECT_EQ(f["guest_halt_poll_ns"], 0);
  EXPECT_EQ(f["idle_states_disabled"], nlohmann::json::array({"haltpoll idle"}));
  EXPECT_EQ(f["frequency_governor"], "");
}

// Bare metal with cpufreq and intel_idle: no haltpoll key at all.
TEST(CpuPowerFacts, BareMetalWithAFrequencyGovernor) {
  TempDir sys("cpu-power-");
  Write(sys.path() + "/devices/system/cpu/cpuidle/current_driver", "intel_idle");
  Write(sys.path() + "/devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance");
  const nlohmann::json f = CpuPowerFacts(sys.path());
  EXPECT_EQ(f["idle_driver"], "intel_idle");
  EXPECT_EQ(f["frequency_governor"], "performance");
  EXPECT_FALSE(f.contains("guest_halt_poll_ns"));
  EXPECT_TRUE(f["idle_states_disabled"].empty());
}

// This host, as it is: the real /sys gives the same facts as the fingerprint carries.
TEST(CpuPowerFacts, TheFingerprintCarriesThisHostsFacts) {
  EXPECT_EQ(EnvironmentFingerprint()["cpu_power"], CpuPowerFacts("/sys"));
}

}  // namespace
}  // namespace commbench
