#include "lib/backend/native/streaming_threshold.h"

#include <unistd.h>

#include <cstdlib>

namespace commbench {
namespace native {
namespace internal {

// Outputs from min(32 MiB, L3 / 3) up are streamed: from there a, b and dst together no longer fit in the
// last-level cache. Below, the output may still be in that cache when its consumer (the next step of a
// collective) reads it, and on this host streaming measured a few % slower at 4-16 MiB; at 64 and 512 MiB it
// measured faster (no read-for-ownership of dst). The cap: a VM's sysconf reports a last-level cache that need not
// be the guest's (480 MiB here, while this host's memcpy falls to memory speed between 32 and 64 MiB, a working set
// of 64-128 MiB), and the reported size alone would stream only from 160 MiB. bench/archive.md has the measurement.
size_t StreamingThresholdForL3(long l3_bytes) {
  constexpr size_t kCap = kStreamingThresholdCap;
  if (l3_bytes <= 0) return kCap;
  return static_cast<size_t>(l3_bytes) / 3 < kCap ? static_cast<size_t>(l3_bytes) / 3 : kCap;
}

size_t DefaultStreamingThreshold() {
  // Experiments only (bench/native_roofline.sh A/Bs): COMMBENCH_NATIVE_STREAM_BYTES replaces the default.
  if (const char* env = std::getenv("COMMBENCH_NATIVE_STREAM_BYTES")) return std::strtoull(env, nullptr, 10);
  return StreamingThresholdForL3(sysconf(_SC_LEVEL3_CACHE_SIZE));  // 0 or -1 where unknown
}

}  // namespace internal
}  // namespace native
}  // namespace commbench
