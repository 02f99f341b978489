#include "lib/diagnose/explain.h"

#include <algorithm>

namespace commbench {
namespace diagnose {
namespace {

bool Has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

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
  bool any_restricted = std::any_of(spec.cpus.begin(), spec.cpus.end(), [&](const std::string& c) { return !unrestricted(c); });
  bool multi_core = !all.empty() && all != "0";
  if (any_unrestricted && !any_restricted && multi_core) {
    add.cpus.push_back("0");
    add.reasons.push_back("--cpus 0: the A/B for CPU oversubscription (one core vs " + all + ")");
  } else if (any_restricted && !any_unrestricted && !all.empty()) {
    add.cpus.push_back(all);
    add.reasons.push_back("--cpus " + all + ": the A/B for CPU oversubscription (all cores)");
  }
  // Pinning: oversubscription and wake-up latency both change when ranks stop migrating.
  bool only_unpinned = spec.pin.empty() || std::all_of(spec.pin.begin(), spec.pin.end(), [](const std::string& p) {
                         return p.empty() || p == "none";
                       });
  if (only_unpinned) {
    add.pin.push_back("compact");
    add.reasons.push_back("--pin compact: the A/B for wake-up latency and migrations");
  }
  return add;
}

}  // namespace diagnose
}  // namespace commbench
