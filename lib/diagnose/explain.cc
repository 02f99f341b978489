#include "lib/diagnose/explain.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace commbench {
namespace diagnose {
namespace {

bool Has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

bool HasGpuBackend(const std::vector<std::string>& backends) { return Has(backends, "nccl"); }

}  // namespace

ExplainAdditions ExplainAxes(const ExplainSpec& spec) {
  ExplainAdditions add;
  // Barrier on vs off.
  if (Has(spec.sync, "world-barrier") && !Has(spec.sync, "none")) {
    add.sync.push_back("none");
    add.reasons.push_back("--sync none: the A/B for a world-wide barrier per iteration");
  }
  // Host sync per iteration vs an event the next iteration waits on.
  if (HasGpuBackend(spec.backends) && (Has(spec.sync, "stream") || Has(spec.sync, "device")) &&
      !Has(spec.sync, "event") && !Has(spec.sync, "none")) {
    add.sync.push_back("event");
    add.reasons.push_back("--sync event: the A/B for a host sync every iteration");
  }
  // Legacy default stream vs a dedicated stream with pinned memory.
  if (HasGpuBackend(spec.backends) && Has(spec.stream, "legacy-default") && !Has(spec.stream, "dedicated")) {
    add.stream.push_back("dedicated");
    add.reasons.push_back("--stream dedicated: the A/B for legacy-default-stream serialisation");
    if (Has(spec.h2d, "pageable") && !Has(spec.h2d, "pinned")) {
      add.h2d.push_back("pinned");
      add.reasons.push_back("--h2d pinned: an asynchronous copy needs pinned memory");
    }
  }
  // Oversubscription: the same points with fewer cores shows whether the slope depends on cores; with all
  // cores when only a restricted set was asked for.
  std::string all = spec.affinity;
  auto unrestricted = [&all](const std::string& c) { return c.empty() || c == all; };
  bool any_unrestricted = spec.cpus.empty() || std::any_of(spec.cpus.begin(), spec.cpus.end(), unrestricted);
  bool any_restricted =
      std::any_of(spec.cpus.begin(), spec.cpus.end(), [&](const std::string& c) { return !unrestricted(c); });
  bool multi_core = !all.empty() && all != "0";
  if (any_unrestricted && !any_restricted && multi_core) {
    add.cpus.push_back("0");
    add.reasons.push_back("--cpus 0: the A/B for CPU oversubscription (one core vs " + all + ")");
  } else if (any_restricted && !any_unrestricted && !all.empty()) {
    add.cpus.push_back(all);
    add.reasons.push_back("--cpus " + all + ": the A/B for CPU oversubscription (all cores)");
  }
  // Shared bandwidth: the same points with the groups taking turns.
  if (spec.multiple_groups && (spec.concurrency.empty() || Has(spec.concurrency, "concurrent")) &&
      !Has(spec.concurrency, "sequential")) {
    add.concurrency.push_back("sequential");
    add.reasons.push_back("--concurrency sequential: the A/B for groups sharing one bandwidth (groups take turns)");
  }
  // Pinning: oversubscription and wake-up latency both change when ranks stop migrating.
  bool only_unpinned = spec.pin.empty() || std::all_of(spec.pin.begin(), spec.pin.end(),
                                                       [](const std::string& p) { return p.empty() || p == "none"; });
  if (only_unpinned) {
    add.pin.push_back("compact");
    add.reasons.push_back("--pin compact: the A/B for wake-up latency and migrations");
  }
  return add;
}

namespace {

std::vector<std::string> Strings(const nlohmann::json& spec, const char* key) {
  std::vector<std::string> out;
  auto it = spec.find(key);
  if (it == spec.end() || !it->is_array()) return out;
  for (const auto& v : *it) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

void Append(nlohmann::json* spec, const char* key, const std::vector<std::string>& values) {
  if (values.empty()) return;
  nlohmann::json& list = (*spec)[key];
  if (!list.is_array()) list = nlohmann::json::array();
  for (const std::string& v : values) list.push_back(v);
}

}  // namespace

ExplainSpec ExplainSpecFromJson(const nlohmann::json& spec, const std::string& affinity) {
  ExplainSpec s;
  if (!spec.is_object()) return s;
  s.backends = Strings(spec, "backends");
  s.sync = Strings(spec, "syncs");
  s.pin = Strings(spec, "pins");
  s.cpus = Strings(spec, "cpus");
  s.stream = Strings(spec, "streams");
  s.h2d = Strings(spec, "h2ds");
  s.concurrency = Strings(spec, "concurrencies");
  auto groups = spec.find("groups");
  s.multiple_groups = groups != spec.end() && groups->is_array() && groups->size() >= 2;
  s.affinity = affinity;
  return s;
}

nlohmann::json WithExplainAxes(const nlohmann::json& spec, const std::string& affinity,
                               std::vector<std::string>* reasons) {
  ExplainAdditions add = ExplainAxes(ExplainSpecFromJson(spec, affinity));
  nlohmann::json out = spec;
  Append(&out, "syncs", add.sync);
  Append(&out, "pins", add.pin);
  Append(&out, "cpus", add.cpus);
  Append(&out, "streams", add.stream);
  Append(&out, "h2ds", add.h2d);
  Append(&out, "concurrencies", add.concurrency);
  if (reasons != nullptr) *reasons = add.reasons;
  return out;
}

}  // namespace diagnose
}  // namespace commbench
