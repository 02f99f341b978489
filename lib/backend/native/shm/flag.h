// Flags in shared memory that ranks wait on: spin briefly, then sleep on a futex. Spinning is only worth it
// while every rank has a core of its own; with more ranks than usable cores a spinning rank steals the core of
// the very peer it waits for (Gloo's busy-poll mode is 1000x slower oversubscribed), so then we sleep at once.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>

#include "lib/core/status.h"

namespace commbench {
namespace native {

// One cache line per flag, so that a waiter polling it does not slow the writer of its neighbour.
struct alignas(64) Flag {
  std::atomic<uint32_t> value{0};
  std::atomic<uint32_t> waiters{0};  // sleepers; the writer calls futex_wake only when there are some
};
static_assert(sizeof(Flag) == 64, "one cache line per flag");

// Sequence numbers wrap: compare by signed distance.
inline bool Reached(uint32_t value, uint32_t target) { return static_cast<int32_t>(value - target) >= 0; }

// Why milliseconds of spinning: a rank that went to sleep needs ~100 us to be woken on a busy host, and if its peer
// meanwhile spins for less than that, the peer sleeps too and both stay in a sleep/wake cycle that costs ~100 us per
// op (measured with a 50 us spin: 105 us per 64 B op instead of 0.5 us). Yielding the core between polls is worse
// under load (43 us per op: the yield hands the core to another job for a whole slice). So: pause-spin for up to
// 5 ms, only while every rank has a core of its own, then sleep (bench/README.md has the measurements).
struct WaitPolicy {
  bool spin = true;
  std::chrono::microseconds spin_for{5000};
  std::chrono::microseconds pause_only_for{5000};  // after this, the spin yields between polls
  std::chrono::milliseconds timeout{30000};
};

// Sets the flag and wakes its sleepers.
void Publish(Flag* flag, uint32_t value);

// Adds to the flag (several writers) and wakes its sleepers.
void Add(Flag* flag, uint32_t delta);

// Waits until Reached(flag->value, target). Sleeps in slices of a few milliseconds; between slices calls
// `check` (aborts, dead peers) and returns its error, or DeadlineExceeded after policy.timeout.
Status WaitFor(Flag* flag, uint32_t target, const WaitPolicy& policy, const std::function<Status()>& check);

// Cores this process may run on (sched_getaffinity).
int UsableCores();

// The policy for `ranks_on_host` ranks: spin only when they all fit on the usable cores. Environment overrides
// (for experiments): COMMBENCH_NATIVE_SPIN=0|1, COMMBENCH_NATIVE_SPIN_US (spin budget), COMMBENCH_NATIVE_PAUSE_US
// (how long the spin only pauses before it starts yielding between polls).
WaitPolicy DefaultPolicy(int ranks_on_host, std::chrono::milliseconds timeout);

}  // namespace native
}  // namespace commbench
