#include "lib/launch/idle_queue.h"

#include <pthread.h>
#include <sched.h>

#include <utility>

namespace commbench {

IdleQueue::IdleQueue() {
  thread_ = std::thread([this] {
    // Only this thread: the driver's main thread forks the ranks, which must not inherit the policy.
    sched_param param{};
    param.sched_priority = 0;
    const bool idle = pthread_setschedparam(pthread_self(), SCHED_IDLE, &param) == 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      idle_policy_ = idle;
    }
    Loop();
  });
}

IdleQueue::~IdleQueue() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  posted_.notify_all();
  thread_.join();
}

void IdleQueue::Post(std::function<Status()> task) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    tasks_.push_back(std::move(task));
  }
  posted_.notify_all();
}

Status IdleQueue::FirstFailure() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return failure_;
}

Status IdleQueue::Drain() {
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [this] { return tasks_.empty() && !running_; });
  return failure_;
}

bool IdleQueue::idle_policy() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return idle_policy_;
}

void IdleQueue::Loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    posted_.wait(lock, [this] { return stop_ || !tasks_.empty(); });
    if (tasks_.empty()) return;  // stopping, and nothing left to run
    std::function<Status()> task = std::move(tasks_.front());
    tasks_.pop_front();
    if (failure_.ok()) {
      running_ = true;
      lock.unlock();
      Status s = task();
      lock.lock();
      running_ = false;
      if (failure_.ok() && !s.ok()) failure_ = std::move(s);
    }
    if (tasks_.empty()) done_.notify_all();
  }
}

}  // namespace commbench
