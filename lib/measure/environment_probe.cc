#include "lib/measure/environment_probe.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "lib/backend/backend.h"
#include "lib/backend/nccl/fingerprint.h"
#include "lib/core/affinity.h"
#include "lib/core/cpu_quota.h"
#include "lib/core/ranges.h"
#include "lib/core/redact.h"
#include "lib/core/text_file.h"
#include "lib/result/json_text.h"

extern char** environ;

namespace commbench {

using nlohmann::json;

namespace {

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "unknown";
}

}  // namespace

json CpuPowerFacts(const std::string& sys) {
  const std::string cpu0 = sys + "/devices/system/cpu/cpu0";
  json facts = {{"idle_driver", FirstLine(sys + "/devices/system/cpu/cpuidle/current_driver")},
                {"idle_governor", FirstLine(sys + "/devices/system/cpu/cpuidle/current_governor")},
                {"frequency_governor", FirstLine(cpu0 + "/cpufreq/scaling_governor")}};
  // A guest's haltpoll driver: how long an idle vCPU polls before it halts (0: it halts at once, and a rank woken
  // by its peer's data waits for the hypervisor to run it again).
  const std::string poll = FirstLine(sys + "/module/haltpoll/parameters/guest_halt_poll_ns");
  if (!poll.empty()) facts["guest_halt_poll_ns"] = std::stoll(poll);
  json disabled = json::array();  // idle states switched off (as `cpupower idle-set -D` does), by name
  for (int state = 0;; ++state) {
    const std::string dir = cpu0 + "/cpuidle/state" + std::to_string(state);
    const std::string name = FirstLine(dir + "/name");
    if (name.empty()) break;
    if (FirstLine(dir + "/disable") == "1") disabled.push_back(name);
  }
  facts["idle_states_disabled"] = disabled;
  return facts;
}

bool IsRecordedVariable(const char* name) {
  for (const char* prefix : {"NCCL_", "GLOO_", "CUDA_", "OMP_"}) {
    if (std::strncmp(name, prefix, std::strlen(prefix)) == 0) return true;
  }
  return false;
}

json EnvironmentFingerprint() {
  json env;
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  env["host"] = host;
  env["cpu_model"] = CpuModel();
  env["cores_online"] = sysconf(_SC_NPROCESSORS_ONLN);
  std::vector<int> cpus = AllowedCpus();
  env["affinity"] = FormatCpuList(cpus);
  env["cores_available"] = cpus.size();
  const CpuQuota quota = ReadCpuQuota();  // a container's CPU limit, which the affinity mask does not show
  env["cpu_quota"] = quota.cpus > 0 ? json(quota.cpus) : json(nullptr);
  env["memory_bytes"] = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
  utsname u;
  if (uname(&u) == 0) env["os"] = std::string(u.sysname) + " " + u.release + " " + u.machine;
  env["cpu_power"] = CpuPowerFacts("/sys");
  json backends = json::object();
  for (const auto& name : RegisteredBackends()) {
    auto backend = CreateBackend(name);
    if (!backend.ok()) continue;
    Status available = (*backend)->Available();
    backends[name] = {{"version", (*backend)->Version()},
                      {"available", available.ok()},
                      {"reason", available.ok() ? "" : available.message()}};
    if (name == "gloo") env["gloo_version"] = (*backend)->Version();  // names-ok: the v1 schema's own field
  }
  env["backends"] = backends;
  json variables = json::object();
  for (char** e = environ; e && *e; ++e) {
    const char* eq = std::strchr(*e, '=');
    if (!eq) continue;
    std::string name(*e, static_cast<size_t>(eq - *e));
    if (!IsRecordedVariable(name.c_str())) continue;
    // A credential under a recorded prefix is named, never shown; a URL's password in a value is masked.
    variables[name] = IsSecretVariableName(name) ? std::string("***") : RedactSecrets(eq + 1);
  }
  env["variables"] = variables;
  nccl::GpuInfo gpu = nccl::GpuFingerprint();
  if (gpu.available()) {
    env["gpu"] = {{"name", gpu.name},
                  {"driver", gpu.driver},
                  {"driver_cuda", gpu.driver_cuda},
                  {"cuda_runtime", gpu.cuda_runtime},
                  {"nccl", gpu.nccl},
                  {"nccl_built", gpu.nccl_built},
                  {"compute_capability", gpu.compute_capability},
                  {"memory_bytes", gpu.memory_bytes},
                  {"device_count", gpu.device_count},
                  {"pci_bus_id", gpu.pci_bus_id}};
  } else {
    env["gpu"] = nullptr;
    env["gpu_unavailable_reason"] = gpu.unavailable_reason;
    // What is known without a device still identifies the software stack.
    env["gpu_software"] = {{"cuda_runtime", gpu.cuda_runtime}, {"nccl", gpu.nccl}, {"nccl_built", gpu.nccl_built}};
  }
  // Variables, the host name and what /proc and /sys say may hold any bytes; a JSON writer takes only UTF-8.
  return WithValidUtf8(std::move(env));
}

}  // namespace commbench
