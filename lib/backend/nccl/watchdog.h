// Hang and error detection for a communicator whose calls can block forever when a peer dies (NCCL kernels spin
// until their peers arrive). A thread polls the communicator's asynchronous error state and the age of the
// current blocking call; on an error or a timeout it aborts the communicator once, which releases the blocked
// call, and keeps the reason so that the caller returns it. Pure C++ so that the logic is tested without a GPU.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "lib/core/status.h"

namespace commbench::nccl {

class Watchdog {
 public:
  struct Options {
    std::string who;  // names the rank in every message: "nccl rank 3 (group 1, group rank 1, GPU 0)"
    std::chrono::milliseconds timeout{30000};
    std::chrono::milliseconds interval{100};  // poll period; small enough next to any useful timeout
  };
  // `poll` returns non-OK when the communicator reports an asynchronous error; `abort` is called at most once,
  // from the watchdog thread. Both must be safe to call concurrently with the communicator's users.
  Watchdog(Options options, std::function<Status()> poll, std::function<void()> abort);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // Marks a blocking call in progress until destroyed; the timeout counts from here. Calls do not nest.
  class Scope {
   public:
    ~Scope();
    Scope(Scope&& other) noexcept : dog_(other.dog_) { other.dog_ = nullptr; }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    Scope& operator=(Scope&&) = delete;

   private:
    friend class Watchdog;
    explicit Scope(Watchdog* dog) : dog_(dog) {}
    Watchdog* dog_;
  };
  [[nodiscard]] Scope Guard(const std::string& what);

  // True once the communicator was aborted; it must not be used afterwards.
  bool aborted() const { return aborted_.load(std::memory_order_acquire); }
  // Why it was aborted (DeadlineExceeded or Internal, naming the rank and the call), or OK.
  Status failure() const;

 private:
  void Loop();
  void Fail(Status status);  // with mu_ held

  const Options options_;
  const std::function<Status()> poll_;
  const std::function<void()> abort_;

  mutable std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  bool waiting_ = false;
  std::string what_;
  std::chrono::steady_clock::time_point since_;
  Status failure_;
  std::atomic<bool> aborted_{false};
  std::thread thread_;  // last: starts after every other member exists
};

// Calls `done` every `interval` until it returns true or an error, or `timeout` passes (DeadlineExceeded
// "<what> did not complete within <timeout> ms"). For non-blocking NCCL initialisation and finalisation.
Status PollUntil(const std::function<StatusOr<bool>()>& done, std::chrono::milliseconds timeout,
                 std::chrono::microseconds interval, const std::string& what);

}  // namespace commbench::nccl
