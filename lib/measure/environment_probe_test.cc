#include "lib/measure/environment_probe.h"

#include <gtest/gtest.h>

#include <cstdlib>
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

// Bytes that are not UTF-8 are escaped where they enter the fingerprint, so that writing it cannot throw; a
// credential under a recorded prefix is never shown.
TEST(EnvironmentFingerprint, HostileVariablesAreEscapedOrMasked) {
  setenv("NCCL_DEBUG", "\xff", 1);
  setenv("NCCL_TEST_LATIN1", "caf\xe9", 1);
  setenv("NCCL_\xfe", "name", 1);
  setenv("NCCL_IB_PASSWORD", "hunter2 x", 1);
  setenv("GLOO_STORE", "redis://:pa ss@h:1", 1);
  setenv("COMMBENCH_REDIS_PASSWORD", "not-recorded", 1);
  const nlohmann::json env = EnvironmentFingerprint();
  const nlohmann::json& v = env["variables"];
  EXPECT_EQ(v["NCCL_DEBUG"], "\\xff");
  EXPECT_EQ(v["NCCL_TEST_LATIN1"], "caf\\xe9");
  EXPECT_EQ(v["NCCL_\\xfe"], "name");
  EXPECT_EQ(v["NCCL_IB_PASSWORD"], "***");
  EXPECT_EQ(v["GLOO_STORE"], "redis://***@h:1");
  const std::string text = env.dump();  // throws on bad UTF-8
  EXPECT_EQ(text.find("hunter2"), std::string::npos);
  EXPECT_EQ(text.find("pa ss"), std::string::npos);
  EXPECT_EQ(text.find("not-recorded"), std::string::npos);
  for (const char* name :
       {"NCCL_DEBUG", "NCCL_TEST_LATIN1", "NCCL_\xfe", "NCCL_IB_PASSWORD", "GLOO_STORE", "COMMBENCH_REDIS_PASSWORD"}) {
    unsetenv(name);
  }
}

}  // namespace
}  // namespace commbench
