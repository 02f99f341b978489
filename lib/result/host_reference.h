// The host's own speed as a job measured it (lib/measure/host_reference.h takes the samples): a fixed workload of
// loopback round trips and memory copies, timed once per sample. A stored baseline keeps its job's samples as the
// top-level "host_reference" block, so that a later gate can tell a host that changed from a build that did
// (lib/gate/host_shift.h).
#pragma once

#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "lib/core/status.h"

namespace commbench::result {

// What one sample does. Samples of different workloads are not compared.
struct HostReferenceWorkload {
  int small_round_trips = 64;  // 8-byte messages: wake-ups, system calls, the loopback path
  int large_round_trips = 16;  // 64 KiB messages: the kernel's copies through socket buffers
  size_t large_bytes = size_t{64} << 10;
  size_t copy_bytes = size_t{4} << 20;
  int copies = 4;
  bool operator==(const HostReferenceWorkload& o) const {
    return small_round_trips == o.small_round_trips && large_round_trips == o.large_round_trips &&
           large_bytes == o.large_bytes && copy_bytes == o.copy_bytes && copies == o.copies;
  }
  bool operator!=(const HostReferenceWorkload& o) const { return !(*this == o); }
};

struct HostReferenceSample {
  double loopback_s = 0;  // the round trips
  double copy_s = 0;      // the copies
  double total_s() const { return loopback_s + copy_s; }
};

// One job's samples, in the order taken.
struct HostReference {
  HostReferenceWorkload workload;
  std::vector<double> loopback_s, copy_s;
  void Add(const HostReferenceSample& s);
  size_t size() const { return loopback_s.size(); }
  std::vector<double> totals_s() const;
};

inline constexpr const char* kHostReferenceKey = "host_reference";
inline constexpr int kHostReferenceSchemaVersion = 1;

nlohmann::json HostReferenceToJson(const HostReference& r);
// InvalidArgument naming the field ("host_reference.copy_s: ...") when the block breaks its schema.
StatusOr<HostReference> HostReferenceFromJson(const nlohmann::json& j, const std::string& path);

}  // namespace commbench::result
