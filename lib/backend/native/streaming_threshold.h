// From which output size the kernels and Copy write with non-temporal stores: the default, derived from the
// last-level cache's size, and the process-wide setting (StreamingThresholdBytes / SetStreamingThresholdBytes in
// reduce.h). Internal to the native backend.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace commbench {
namespace native {
namespace internal {

// The cap on the default threshold (why: streaming_threshold.cc).
constexpr size_t kStreamingThresholdCap = size_t{32} << 20;

// The default for a last-level cache of l3_bytes (0 or negative: unknown): min(kStreamingThresholdCap, L3 / 3).
size_t StreamingThresholdForL3(long l3_bytes);

// StreamingThresholdForL3 of this machine's L3 as sysconf reports it.
size_t DefaultStreamingThreshold();

// The setting. A function-local static: set on first use, whatever the order of static initialisation. Inline:
// read on every Reduce of a large enough output (Streams, stream_store.h) and every Copy.
inline std::atomic<size_t>& StreamingThreshold() {
  static std::atomic<size_t> threshold{DefaultStreamingThreshold()};
  return threshold;
}

// This thread's lower threshold while a StreamFinalOutputs (reduce.h) lives; SIZE_MAX when none.
inline thread_local size_t final_output_threshold = SIZE_MAX;

// What the kernels and Copy compare an output's size with: the lower of the two.
inline size_t EffectiveStreamingThreshold() {
  const size_t global = StreamingThreshold().load(std::memory_order_relaxed);
  return final_output_threshold < global ? final_output_threshold : global;
}

}  // namespace internal
}  // namespace native
}  // namespace commbench
