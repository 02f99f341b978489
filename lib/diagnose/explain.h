// `--explain`: the A/B axis values a sweep needs so that the diagnosis can confirm (or rule out) causes in the
// same result. A pure function over the sweep's axes; the sweep adds the returned values to its axes.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace commbench {
namespace diagnose {

// The sweep's axis lists as resolved (defaults filled in: sync {"none"}, pin {"none"}, cpus {""}), so that an
// addition is always relative to what the sweep will really run.
struct ExplainSpec {
  std::vector<std::string> backends;
  std::vector<std::string> sync;    // none | group-barrier | world-barrier | stream | event | device
  std::vector<std::string> pin;     // none | compact | spread
  std::vector<std::string> cpus;    // "" = unrestricted
  std::vector<std::string> stream;  // legacy-default | per-thread | dedicated (GPU backends)
  std::vector<std::string> h2d;     // none | pageable | pinned (GPU backends)
  std::vector<std::string> concurrency;  // concurrent | sequential
  bool multiple_groups = false;          // the sweep has two or more group counts (groups can share)
  std::string affinity;             // the cores the sweep may use, e.g. "0-1": the unrestricted --cpus value
};

struct ExplainAdditions {
  std::vector<std::string> sync, pin, cpus, stream, h2d, concurrency;  // values to add to each axis
  std::vector<std::string> reasons;  // one line per addition, for the console
  bool empty() const {
    return sync.empty() && pin.empty() && cpus.empty() && stream.empty() && h2d.empty() && concurrency.empty();
  }
};

ExplainAdditions ExplainAxes(const ExplainSpec& spec);

// The same over the sweep spec as the result file records it ("backends", "syncs", "pins", "cpus", "streams",
// "h2ds" lists); `affinity` is environment.affinity.
ExplainSpec ExplainSpecFromJson(const nlohmann::json& spec, const std::string& affinity);

// `spec` with the additions appended to its lists; `reasons` (optional) receives one line per addition.
nlohmann::json WithExplainAxes(const nlohmann::json& spec, const std::string& affinity,
                               std::vector<std::string>* reasons = nullptr);

}  // namespace diagnose
}  // namespace commbench
