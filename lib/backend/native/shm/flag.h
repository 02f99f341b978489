// Flags in shared memory that ranks wait on: poll for a while, then sleep on a futex.
//  - Every rank has a core of its own: pause-spin (no syscalls) for up to 5 ms, then sleep.
//  - More ranks than usable cores: never pause-spin (a spinning rank keeps the very peer it waits for off the
//    core; Gloo's busy-poll mode is 1000x slower so). Poll with sched_yield between polls for up to 2 ms instead,
//    which hands the core straight to a runnable peer, then sleep. Measured at 8 ranks on 2 cores: 8-15 us per
//    64 B allreduce with yielding polls, 34-58 us when sleeping at once (bench/archive.md).
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

// Why milliseconds of polling when every rank has a core: a rank that went to sleep needs ~100 us to be woken on a
// busy host, and if its peer meanwhile polls for less than that, the peer sleeps too and both stay in a sleep/wake
// cycle that costs ~100 us per op (measured with a 50 us spin: 105 us per 64 B op instead of 0.5 us). Yielding
// between polls is worse there (43 us per op: with a core each, the yield hands the core to another job).
struct WaitPolicy {
  bool spin = true;                                // poll at all before sleeping
  std::chrono::microseconds spin_for{5000};        // total polling budget
  std::chrono::microseconds pause_only_for{5000};  // poll without syscalls this long, then yield between polls
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
