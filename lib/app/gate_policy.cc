#include "lib/app/gate_policy.h"

#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>

#include "lib/model/point_json.h"

namespace commbench::app {

std::vector<std::string> Variant::Names() const {
  std::vector<std::string> names;
  for (const auto& [name, value] : rank_env) names.push_back(name);
  if (uniform_slowdown) names.push_back(kSlowdownVariable);
  return names;
}

namespace {

Status AddAssignment(const std::string& item, const char* flag, Variant* variant) {
  static const std::regex kName("[A-Za-z_][A-Za-z0-9_]*");
  const size_t eq = item.find('=');
  if (eq == std::string::npos || !std::regex_match(item.substr(0, eq), kName)) {
    return InvalidArgument(std::string(flag) + ": invalid assignment '" + item +
                           "' (accepted: NAME=VALUE[,NAME=VALUE...], e.g. NCCL_ALGO=Ring or LD_LIBRARY_PATH=old/)");
  }
  const std::string name = item.substr(0, eq), value = item.substr(eq + 1);
  if (name != kSlowdownVariable) {
    variant->rank_env.emplace_back(name, value);
    return OkStatus();
  }
  char* end = nullptr;
  const double f = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || !(f >= 0 && f <= 10)) {
    return InvalidArgument(std::string(flag) + ": invalid value '" + value + "' for " + kSlowdownVariable +
                           " (accepted: a fraction from 0 to 10)");
  }
  variant->uniform_slowdown = f;
  return OkStatus();
}

}  // namespace

StatusOr<Variant> ParseVariant(const std::string& text, const char* flag) {
  Variant variant;
  if (text.empty()) return variant;
  for (size_t start = 0;;) {
    const size_t comma = text.find(',', start);
    RETURN_IF_ERROR(AddAssignment(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start),
                                  flag, &variant));
    if (comma == std::string::npos) return variant;
    start = comma + 1;
  }
}

std::vector<std::string> SpecConflicts(const SweepSpec& given, const SweepSpec& baseline, const SweepSpec& defaults) {
  const nlohmann::json g = SpecToJson(given), d = SpecToJson(defaults), b = SpecToJson(baseline);
  std::vector<std::string> out;
  for (const auto& [key, value] : g.items()) {
    if (key.rfind("test_only_", 0) == 0 || key == "explain_factors") continue;
    if (d.contains(key) && d[key] == value) continue;  // not set
    if (!b.contains(key) || b[key] != value) {
      out.push_back(
          key + " " + value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + " (the baseline's: " +
          (b.contains(key) ? b[key].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) : "none") + ")");
    }
  }
  return out;
}

SweepSpec GateSpec(const SweepSpec& baseline, const SweepSpec& given) {
  SweepSpec spec = baseline;
  spec.explain_factors.clear();
  spec.test_only_uniform_slowdown = given.test_only_uniform_slowdown;
  spec.test_only_slow_rank = given.test_only_slow_rank;
  spec.test_only_late_rank = given.test_only_late_rank;
  spec.test_only_hang_rank = given.test_only_hang_rank;
  return spec;
}

std::string BaselineText(result::ResultFile file) {
  for (result::PointResult& p : file.points) p.samples_us = result::SampleSet{0, {}, ""};
  return result::ResultFileToJson(file).dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

bool CompleteAndCorrect(const result::ResultFile& file) {
  if (file.trailer.status != result::RunStatus::kComplete) return false;
  for (const result::PointResult& p : file.points) {
    if (!p.correct) return false;
  }
  return true;
}

result::ResultFile MergeRepeats(const std::vector<result::ResultFile>& runs, int64_t repeats) {
  result::ResultFile merged;
  if (runs.empty()) return merged;
  merged.header = runs.front().header;
  merged.header.spec.repeats = repeats;
  merged.trailer = runs.back().trailer;
  std::vector<std::string> order;
  std::map<std::string, std::vector<result::PointResult>> by_id;
  for (const result::ResultFile& run : runs) {
    for (const result::PointResult& p : run.points) {
      if (by_id[p.id].empty()) order.push_back(p.id);
      by_id[p.id].push_back(p);
    }
    if (run.trailer.status == result::RunStatus::kPartial) {
      merged.trailer.status = result::RunStatus::kPartial;
      merged.trailer.failure = run.trailer.failure;
    }
  }
  if (static_cast<int64_t>(runs.size()) < repeats && merged.trailer.status == result::RunStatus::kComplete) {
    merged.trailer.status = result::RunStatus::kPartial;
    merged.trailer.failure = "ran " + std::to_string(runs.size()) + " of " + std::to_string(repeats) + " repeats";
  }
  for (const std::string& id : order) merged.points.push_back(result::CombineRepeats(std::move(by_id[id])));
  return merged;
}

}  // namespace commbench::app
