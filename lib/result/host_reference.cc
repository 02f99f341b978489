#include "lib/result/host_reference.h"

#include <nlohmann/json.hpp>

#include "lib/result/json_reader.h"

namespace commbench::result {

void HostReference::Add(const HostReferenceSample& s) {
  loopback_s.push_back(s.loopback_s);
  copy_s.push_back(s.copy_s);
}

std::vector<double> HostReference::totals_s() const {
  std::vector<double> t(loopback_s.size());
  for (size_t i = 0; i < t.size(); ++i) t[i] = loopback_s[i] + copy_s[i];
  return t;
}

nlohmann::json HostReferenceToJson(const HostReference& r) {
  const HostReferenceWorkload& w = r.workload;
  return {{"schema_version", kHostReferenceSchemaVersion},
          {"workload",
           {{"small_round_trips", w.small_round_trips},
            {"large_round_trips", w.large_round_trips},
            {"large_bytes", w.large_bytes},
            {"copy_bytes", w.copy_bytes},
            {"copies", w.copies}}},
          {"loopback_s", r.loopback_s},
          {"copy_s", r.copy_s}};
}

StatusOr<HostReference> HostReferenceFromJson(const nlohmann::json& j, const std::string& path) {
  SchemaErrors errors;
  const std::string at = path + ": " + kHostReferenceKey;
  ObjectReader top(j, at, &errors);
  const int64_t version = top.Int("schema_version", 1);
  if (errors.ok() && version != kHostReferenceSchemaVersion) {
    return InvalidArgument(at + ".schema_version is " + std::to_string(version) +
                           " (accepted: " + std::to_string(kHostReferenceSchemaVersion) + ")");
  }
  HostReference r;
  if (top.Has("workload")) {
    ObjectReader w(j.at("workload"), at + ".workload", &errors);
    r.workload.small_round_trips = w.SmallInt("small_round_trips", 0);
    r.workload.large_round_trips = w.SmallInt("large_round_trips", 0);
    r.workload.large_bytes = w.Unsigned("large_bytes");
    r.workload.copy_bytes = w.Unsigned("copy_bytes");
    r.workload.copies = w.SmallInt("copies", 0);
  } else {
    errors.Add(at + ".workload", "missing");
  }
  r.loopback_s = top.Numbers("loopback_s");
  r.copy_s = top.Numbers("copy_s");
  RETURN_IF_ERROR(errors.status());
  if (r.loopback_s.size() != r.copy_s.size()) {
    return InvalidArgument(at + ": loopback_s has " + std::to_string(r.loopback_s.size()) + " samples, copy_s " +
                           std::to_string(r.copy_s.size()) + " (accepted: one of each per sample)");
  }
  for (const std::vector<double>* v : {&r.loopback_s, &r.copy_s}) {
    for (double s : *v) {
      if (!(s > 0)) {
        return InvalidArgument(at + ": a sample of " + std::to_string(s) + " s (accepted: a time > 0 s)");
      }
    }
  }
  return r;
}

}  // namespace commbench::result
