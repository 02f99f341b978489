#include "lib/app/accept_host.h"

#include <ifaddrs.h>
#include <net/if.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "lib/launch/own_address.h"
#include "lib/measure/environment_probe.h"

namespace commbench::app {
namespace {

using nlohmann::json;

std::string Scalar(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// /sys/class/net/IF/FILE, first line ("" when it cannot be read: a virtual interface has no speed).
std::string NetFile(const std::string& iface, const char* file) {
  std::ifstream in("/sys/class/net/" + iface + "/" + file);
  std::string line;
  std::getline(in, line);
  return line;
}

// The interfaces that are up, loopback left out.
std::set<std::string> UpInterfaces() {
  std::set<std::string> out;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return out;
  for (ifaddrs* a = list; a; a = a->ifa_next) {
    if ((a->ifa_flags & IFF_UP) && !(a->ifa_flags & IFF_LOOPBACK)) out.insert(a->ifa_name);
  }
  freeifaddrs(list);
  return out;
}

}  // namespace

std::string HostProblem(const accept::Profile& profile) {
  if (profile.preflight.interface.empty()) return "";
  auto address = InterfaceAddress(profile.preflight.interface);
  return address.ok() ? "" : "no interface " + profile.preflight.interface;
}

Fingerprint HostFingerprint(const std::string& iface) {
  const json env = EnvironmentFingerprint();
  Fingerprint f;
  for (const char* key : {"cpu_model", "cores_online", "cores_available", "cpu_quota"}) {
    if (env.contains(key)) f[key] = Scalar(env[key]);
  }
  if (env.contains("os")) f["kernel"] = Scalar(env["os"]);
  const json none = json::object();
  const json& backends = env.contains("backends") ? env["backends"] : none;
  for (auto b = backends.begin(); b != backends.end(); ++b) {
    if (b->is_object() && b->contains("version")) f["version." + b.key()] = Scalar((*b)["version"]);
  }
  const json& variables = env.contains("variables") ? env["variables"] : none;
  for (auto v = variables.begin(); v != variables.end(); ++v) f["env." + v.key()] = Scalar(*v);
  const json gpu = env.value("gpu", json());
  for (const char* key : {"name", "driver", "cuda_runtime", "nccl", "device_count"}) {
    if (gpu.is_object() && gpu.contains(key)) f[std::string("gpu.") + key] = Scalar(gpu[key]);
  }
  const std::set<std::string> ifaces = iface.empty() ? UpInterfaces() : std::set<std::string>{iface};
  for (const std::string& i : ifaces) {
    for (const char* file : {"mtu", "speed"}) {
      const std::string v = NetFile(i, file);
      if (!v.empty()) f["net." + i + "." + file] = v;
    }
  }
  return f;
}

std::string HostReportText(const accept::Profile& profile, const std::string& iface) {
  return json{{"problem", HostProblem(profile)},
              {"fingerprint", HostFingerprint(iface.empty() ? profile.preflight.interface : iface)}}
      .dump();
}

void ParseHostReport(const std::string& text, std::string* problem, Fingerprint* fingerprint) {
  fingerprint->clear();
  const json j = json::parse(text, nullptr, false);
  if (!j.is_object() || !j.contains("problem") || !j["problem"].is_string()) {
    *problem = text;
    return;
  }
  *problem = j["problem"].get<std::string>();
  if (!j.contains("fingerprint") || !j["fingerprint"].is_object()) return;
  const json& f = j["fingerprint"];
  for (auto v = f.begin(); v != f.end(); ++v) (*fingerprint)[v.key()] = Scalar(*v);
}

AcceptPhases LocalPhases(const accept::Profile& profile) {
  const int per_host = profile.preflight.ranks_per_host > 0 ? profile.preflight.ranks_per_host : 2;
  const auto ranks = static_cast<size_t>(per_host);
  return AcceptPhases::OverRanks(profile, std::vector<std::string>(ranks, "127.0.0.1"),
                                 std::vector<std::string>(ranks, HostProblem(profile)));
}

AcceptPhases SessionPhases(const accept::Profile& profile, const std::vector<SpmdMember>& members) {
  std::vector<std::string> addresses, problems;
  std::vector<Fingerprint> fingerprints;
  for (const SpmdMember& m : members) {
    addresses.push_back(m.address);
    ParseHostReport(m.problem, &problems.emplace_back(), &fingerprints.emplace_back());
  }
  return AcceptPhases::OverRanks(profile, addresses, problems, fingerprints);
}

}  // namespace commbench::app
