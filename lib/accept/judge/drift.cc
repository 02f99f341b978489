// Configuration drift, judged before anything is measured (verdict.h's DriftChecks): each host's fingerprint
// (versions, NCCL_/GLOO_/CUDA_/OMP_ variables, its interface's MTU and speed, kernel, CPU model, cores, GPU) against
// the majority's. A host that differs from the majority on a key the profile does not let differ fails with reason
// "drift", naming each key with its value and the majority's. Needs 3 hosts with fingerprints (2 have no majority).
#include <map>
#include <set>

#include "lib/accept/judge/common.h"

namespace commbench::accept {
namespace {

using judge::MakeCheck;

// "env.NCCL_*" matches every key that starts with "env.NCCL_"; anything else matches itself.
bool MatchesAny(const std::string& key, const std::vector<std::string>& patterns) {
  for (const std::string& p : patterns) {
    if (!p.empty() && p.back() == '*' ? key.compare(0, p.size() - 1, p, 0, p.size() - 1) == 0 : key == p) return true;
  }
  return false;
}

bool Compared(const DriftSpec& spec, const std::string& key) {
  if (MatchesAny(key, spec.may_differ)) return false;
  return spec.must_match.empty() || MatchesAny(key, spec.must_match);
}

constexpr char kAbsent[] = "(absent)";

// Key -> the value most hosts have, when more than half of them agree.
std::map<std::string, std::string> Majority(const std::vector<const HostFound*>& hosts, const DriftSpec& spec) {
  std::map<std::string, std::map<std::string, int>> votes;
  std::set<std::string> keys;
  for (const HostFound* f : hosts) {
    for (const auto& [k, v] : f->fingerprint) keys.insert(k);
  }
  for (const HostFound* f : hosts) {
    for (const std::string& k : keys) {
      if (!Compared(spec, k)) continue;
      auto it = f->fingerprint.find(k);
      ++votes[k][it == f->fingerprint.end() ? kAbsent : it->second];
    }
  }
  std::map<std::string, std::string> out;
  for (const auto& [k, counts] : votes) {
    for (const auto& [v, n] : counts) {
      if (2 * n > static_cast<int>(hosts.size())) out[k] = v;
    }
  }
  return out;
}

}  // namespace

std::vector<Check> DriftChecks(const Profile& profile, const std::vector<std::string>& expected_hosts,
                               const std::vector<HostFound>& found) {
  std::map<std::string, const HostFound*> by_host;
  for (const HostFound& f : found) {
    if (!f.fingerprint.empty()) by_host[f.host] = &f;
  }
  std::vector<const HostFound*> hosts;
  for (const std::string& h : expected_hosts) {
    if (by_host.count(h)) hosts.push_back(by_host[h]);
  }
  std::vector<Check> out;
  if (hosts.size() < 3) return out;
  const std::map<std::string, std::string> majority = Majority(hosts, profile.drift);
  for (const HostFound* f : hosts) {
    std::string differs;
    int n = 0;
    for (const auto& [k, want] : majority) {
      auto it = f->fingerprint.find(k);
      const std::string has = it == f->fingerprint.end() ? kAbsent : it->second;
      if (has == want) continue;
      ++n;
      differs += (differs.empty() ? "" : "; ") + k + " " + has + " (the majority: " + want + ")";
    }
    out.push_back(MakeCheck("preflight drift", f->host, n == 0, n, 0, "keys",
                            f->host + (n == 0 ? ": its fingerprint agrees with the majority's on " +
                                                    std::to_string(majority.size()) + " key(s)"
                                              : ": differs from the majority of " + std::to_string(hosts.size()) +
                                                    " hosts on " + std::to_string(n) + " key(s): " + differs),
                            ReasonKind::kDrift));
  }
  return out;
}

}  // namespace commbench::accept
