// Pre-flight, before anything is measured (verdict.h's PreflightChecks): the host count, and per expected host the
// ranks that joined, the interface and the GPUs the profile expects. Any failure: exit 3.
#include <algorithm>
#include <map>

#include "lib/accept/judge/common.h"

namespace commbench::accept {
namespace {

using judge::MakeCheck;

// "preflight interface": the profile's interface among those the host has.
Check InterfaceCheck(const std::string& want, const std::string& host, const HostFound* f) {
  const bool has = f && std::find(f->interfaces.begin(), f->interfaces.end(), want) != f->interfaces.end();
  std::string present;
  if (f) {
    for (const std::string& i : f->interfaces) present += (present.empty() ? "" : ", ") + i;
  }
  return MakeCheck(
      "preflight interface", host, has, has, 1, "",
      host + ": interface " + want + (has ? " present" : " missing") +
          (f ? " (present: " + (present.empty() ? std::string("none") : present) + ")" : " (host not reached)"),
      ReasonKind::kMissing);
}

// One host's checks: ranks joined, then interface and GPUs where the profile asks for them.
void HostChecks(const PreflightSpec& want, const std::string& host, const HostFound* f, std::vector<Check>* out) {
  const int ranks = f ? static_cast<int>(f->ranks.size()) : 0;
  const int per_host = want.ranks_per_host;
  const bool ok = per_host > 0 ? ranks == per_host : ranks > 0;
  out->push_back(MakeCheck("preflight ranks", host, ok, ranks, per_host > 0 ? per_host : 1, "ranks",
                           host + ": " + std::to_string(ranks) + " rank(s) joined" +
                               (per_host > 0 ? ", the profile expects " + std::to_string(per_host) : std::string()) +
                               (ranks == 0 ? " (missing at rendezvous)" : ""),
                           ReasonKind::kMissing));
  if (!want.interface.empty()) out->push_back(InterfaceCheck(want.interface, host, f));
  if (want.gpus_per_host > 0) {
    const int gpus = f ? f->gpus : -1;
    const bool has = gpus >= want.gpus_per_host;
    out->push_back(MakeCheck("preflight gpus", host, has, gpus, want.gpus_per_host, "GPUs",
                             host + ": " +
                                 (gpus < 0 ? std::string("GPUs not probed") : std::to_string(gpus) + " GPU(s)") +
                                 ", the profile expects " + std::to_string(want.gpus_per_host),
                             ReasonKind::kMissing));
  }
}

}  // namespace

std::vector<Check> PreflightChecks(const Profile& profile, const std::vector<std::string>& expected_hosts,
                                   const std::vector<HostFound>& found) {
  std::vector<Check> out;
  const int want_hosts = profile.preflight.hosts;
  const int n = static_cast<int>(expected_hosts.size());
  out.push_back(MakeCheck("preflight hosts", "", n > 0 && (want_hosts == 0 || n == want_hosts), n, want_hosts, "hosts",
                          n == 0 ? "no host to accept"
                          : want_hosts == 0
                              ? std::to_string(n) + " host(s), as the launcher gave them"
                              : std::to_string(n) + " host(s), the profile expects " + std::to_string(want_hosts),
                          ReasonKind::kMissing));
  std::map<std::string, const HostFound*> by_host;
  for (const HostFound& f : found) by_host[f.host] = &f;
  for (const std::string& host : expected_hosts) {
    auto it = by_host.find(host);
    HostChecks(profile.preflight, host, it == by_host.end() ? nullptr : it->second, &out);
  }
  for (Check& c : out) c.preflight = true;
  return out;
}

}  // namespace commbench::accept
