#include "lib/backend/nccl/watchdog.h"

#include <utility>

namespace commbench::nccl {

Watchdog::Watchdog(Options options, std::function<Status()> poll, std::function<void()> abort)
    : options_(std::move(options)), poll_(std::move(poll)), abort_(std::move(abort)), thread_([this] { Loop(); }) {}

Watchdog::~Watchdog() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

Watchdog::Scope Watchdog::Guard(const std::string& what) {
  std::lock_guard<std::mutex> lock(mu_);
  waiting_ = true;
  what_ = what;  // copy-assignment reuses what_'s buffer: no allocation per Run
  since_ = std::chrono::steady_clock::now();
  return Scope(this);
}

Watchdog::Scope::~Scope() {
  if (dog_ == nullptr) return;
  std::lock_guard<std::mutex> lock(dog_->mu_);
  dog_->waiting_ = false;
}

Status Watchdog::failure() const {
  std::lock_guard<std::mutex> lock(mu_);
  return failure_;
}

void Watchdog::Fail(Status status) {
  failure_ = std::move(status);
  // Abort with the lock held: a Guard() racing with us then sees aborted() before it blocks again.
  abort_();
  aborted_.store(true, std::memory_order_release);
}

void Watchdog::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_ && !aborted()) {
    wake_.wait_for(lock, options_.interval, [this] { return stop_; });
    if (stop_) break;
    Status async = poll_();
    if (!async.ok()) {
      std::string during = waiting_ ? " during " + what_ : "";
      Fail(Status(async.code(),
                  options_.who + ": asynchronous error" + during + ": " + async.message() + "; communicator aborted"));
      break;
    }
    if (waiting_ && std::chrono::steady_clock::now() - since_ > options_.timeout) {
      Fail(DeadlineExceeded(options_.who + ": " + what_ + " did not complete within " +
                            std::to_string(options_.timeout.count()) +
                            " ms (a peer rank died or hangs?); communicator aborted"));
      break;
    }
  }
}

Status PollUntil(const std::function<StatusOr<bool>()>& done, std::chrono::milliseconds timeout,
                 std::chrono::microseconds interval, const std::string& what) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    StatusOr<bool> d = done();
    if (!d.ok()) return d.status();
    if (*d) return OkStatus();
    if (std::chrono::steady_clock::now() >= deadline) {
      return DeadlineExceeded(what + " did not complete within " + std::to_string(timeout.count()) + " ms");
    }
    std::this_thread::sleep_for(interval);
  }
}

}  // namespace commbench::nccl
