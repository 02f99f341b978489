#include "lib/backend/native/shm/flag.h"

#include <immintrin.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <cstring>

namespace commbench {
namespace native {
namespace {

// Shared (not FUTEX_PRIVATE): the flag lives in memory mapped by several processes.
long Futex(std::atomic<uint32_t>* addr, int op, uint32_t val, const struct timespec* timeout) {
  return syscall(SYS_futex, reinterpret_cast<uint32_t*>(addr), op, val, timeout, nullptr, 0);
}

constexpr std::chrono::milliseconds kSlice{10};

// A rank that was preempted (a gap of kPreempted between two polls) after spinning for kLongSpin already has
// evidence that its peer is not running while it spins: other jobs, or rank threads sharing one process's CPU
// share. Spinning then only burns the share the peer needs, so the rank sleeps at once for the next
// kNoSpinAfterPreemption. A preemption early in a wait is incidental (a busy host preempts everyone now and then)
// and costs nothing. Measured: without the rule, shm_bench's two spinning threads took 5-11 ms per 64 B op; with a
// penalty after every preemption, 2 processes on a loaded host lost their 0.5 us path (4.6 us per op).
// Per thread, i.e. per rank.
constexpr std::chrono::microseconds kPreempted{200};
constexpr std::chrono::microseconds kLongSpin{500};
constexpr std::chrono::milliseconds kNoSpinAfterPreemption{50};
thread_local std::chrono::steady_clock::time_point no_spin_until;

}  // namespace

void Publish(Flag* flag, uint32_t value) {
  flag->value.store(value, std::memory_order_seq_cst);
  if (flag->waiters.load(std::memory_order_seq_cst) != 0) Futex(&flag->value, FUTEX_WAKE, INT_MAX, nullptr);
}

void Add(Flag* flag, uint32_t delta) {
  flag->value.fetch_add(delta, std::memory_order_seq_cst);
  if (flag->waiters.load(std::memory_order_seq_cst) != 0) Futex(&flag->value, FUTEX_WAKE, INT_MAX, nullptr);
}

Status WaitFor(Flag* flag, uint32_t target, const WaitPolicy& policy, const std::function<Status()>& check) {
  uint32_t v = flag->value.load(std::memory_order_acquire);
  if (Reached(v, target)) return OkStatus();
  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  if (policy.spin && start >= no_spin_until) {
    auto pause_until = start + policy.pause_only_for;
    auto spin_until = start + policy.spin_for;
    auto last = start;
    bool yielding = false;
    for (uint32_t i = 1;; ++i) {
      if (yielding) {
        sched_yield();
      } else {
        _mm_pause();
      }
      v = flag->value.load(std::memory_order_acquire);
      if (Reached(v, target)) return OkStatus();
      if ((i & 63) == 0 || yielding) {
        auto now = Clock::now();
        if (!yielding && now - last > kPreempted) {
          if (last - start > kLongSpin) no_spin_until = now + kNoSpinAfterPreemption;
          break;
        }
        last = now;
        if (now > spin_until) break;
        yielding = now >= pause_until;
      }
    }
  }
  auto deadline = start + policy.timeout;
  struct timespec slice = {0, static_cast<long>(std::chrono::nanoseconds(kSlice).count())};
  for (;;) {
    flag->waiters.fetch_add(1, std::memory_order_seq_cst);
    v = flag->value.load(std::memory_order_seq_cst);
    if (!Reached(v, target)) Futex(&flag->value, FUTEX_WAIT, v, &slice);
    flag->waiters.fetch_sub(1, std::memory_order_seq_cst);
    v = flag->value.load(std::memory_order_acquire);
    if (Reached(v, target)) return OkStatus();
    if (Clock::now() - start >= kSlice) {
      RETURN_IF_ERROR(check());
      if (Clock::now() > deadline) {
        return DeadlineExceeded("no progress for " + std::to_string(policy.timeout.count()) + " ms");
      }
    }
  }
}

int UsableCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
  return CPU_COUNT(&set);
}

WaitPolicy DefaultPolicy(int ranks_on_host, std::chrono::milliseconds timeout) {
  WaitPolicy policy;
  policy.timeout = timeout;
  if (ranks_on_host > UsableCores()) {
    policy.spin_for = std::chrono::microseconds(2000);
    policy.pause_only_for = std::chrono::microseconds(0);
  }
  if (const char* env = std::getenv("COMMBENCH_NATIVE_SPIN")) policy.spin = std::strcmp(env, "0") != 0;
  if (const char* env = std::getenv("COMMBENCH_NATIVE_SPIN_US"))
    policy.spin_for = std::chrono::microseconds(std::atoi(env));
  if (const char* env = std::getenv("COMMBENCH_NATIVE_PAUSE_US")) {
    policy.pause_only_for = std::chrono::microseconds(std::atoi(env));
  }
  return policy;
}

}  // namespace native
}  // namespace commbench
