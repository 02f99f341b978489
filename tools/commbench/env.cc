#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "lib/backend/backend.h"
#include "lib/core/cpu_quota.h"
#include "lib/measure/environment_probe.h"
#include "lib/measure/host_peak.h"
#include "tools/commbench/commands.h"

namespace commbench::cli {

namespace {

struct EnvOptions {
  bool json = false;
};

// One line: how the CPUs idle and clock, with what each setting means for a rank woken by its peer's data.
void PrintCpuPower(const nlohmann::json& p) {
  const std::string driver = p.value("idle_driver", ""), governor = p.value("frequency_governor", "");
  std::string line = driver.empty() ? "no cpuidle driver" : "cpuidle " + driver;
  if (p.contains("guest_halt_poll_ns")) {
    const long long ns = p["guest_halt_poll_ns"].get<long long>();
    line += ns == 0 ? ", guest halt polling off (an idle vCPU halts at once; waking it goes through the hypervisor)"
                    : ", guest halt polling up to " + std::to_string(ns / 1000) + " us";
  }
  for (const auto& state : p.value("idle_states_disabled", nlohmann::json::array())) {
    line += ", idle state " + state.get<std::string>() + " off";
  }
  line += governor.empty() ? "; no cpufreq (frequency not set here)" : "; cpufreq " + governor;
  std::printf("cpu power       %s\n", line.c_str());
}

void PrintEnvironment(const nlohmann::json& env) {
  std::printf("host            %s\n", env["host"].get<std::string>().c_str());
  std::printf("cpu             %s\n", env["cpu_model"].get<std::string>().c_str());
  const nlohmann::json quota = env.value("cpu_quota", nlohmann::json());
  const std::string limit = quota.is_number() ? "; cgroup CPU quota " + FormatCpus(quota.get<double>()) : "";
  std::printf("cores           %d online, %d usable (affinity %s)%s\n", env["cores_online"].get<int>(),
              env["cores_available"].get<int>(), env["affinity"].get<std::string>().c_str(), limit.c_str());
  std::printf("memory          %.1f GiB\n", env["memory_bytes"].get<double>() / (1 << 30));
  std::printf("os              %s\n", env.value("os", std::string("?")).c_str());
  PrintCpuPower(env.value("cpu_power", nlohmann::json::object()));
  auto peaks = GetHostPeaks();
  if (peaks.ok()) {
    const std::string where = peaks->from_cache ? "cached in " + peaks->cache_file + ", measured" : "measured now";
    std::printf("peaks           memcpy %.2f GB/s, loopback TCP %.2f GB/s (%s ", peaks->memcpy_gbps,
                peaks->tcp_loopback_gbps, where.c_str());
    if (peaks->load_per_core < 0) {
      std::printf("at an unrecorded load)\n");
    } else {
      std::printf("at load %.2f per core)\n", peaks->load_per_core);
    }
  } else {
    std::printf("peaks           not measured: %s\n", peaks.status().message().c_str());
  }
  std::printf("\nbackends\n");
  for (const auto& name : RegisteredBackends()) {
    auto backend = CreateBackend(name);
    if (!backend.ok()) continue;
    Status available = (*backend)->Available();
    std::printf("  %-8s %-28s %s\n", name.c_str(), (*backend)->Version().c_str(),
                available.ok() ? "available" : ("unavailable: " + available.message()).c_str());
    for (const auto& a : (*backend)->Algorithms()) {
      std::printf("      %-15s %-18s %s (suits %s)\n", std::string(Name(a.op)).c_str(), a.name.c_str(),
                  a.description.c_str(), a.suits.c_str());
    }
  }
  if (!env["variables"].empty()) {
    std::printf("\nvariables\n");
    for (const auto& [k, v] : env["variables"].items())
      std::printf("  %s=%s\n", k.c_str(), v.get<std::string>().c_str());
  }
}

}  // namespace

void SetupEnv(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<EnvOptions>();
  CLI::App* sub =
      app.add_subcommand("env", "Show this host, the backends that can run here (or why not) and their algorithms");
  sub->add_flag("--json", options->json, "Print the environment fingerprint as JSON");
  sub->callback([options, exit_code] {
    nlohmann::json env = EnvironmentFingerprint();
    if (options->json) {
      auto peaks = GetHostPeaks();
      if (peaks.ok())
        env["peaks"] = {{"memcpy_gbps", peaks->memcpy_gbps}, {"tcp_loopback_gbps", peaks->tcp_loopback_gbps}};
      std::printf("%s\n", env.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    } else {
      PrintEnvironment(env);
    }
    *exit_code = 0;
  });
}

}  // namespace commbench::cli
