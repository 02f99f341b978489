// Work that must not take CPU time from the ranks: tasks run one at a time, in the order posted, on one thread
// under SCHED_IDLE, which gets only the time that no other runnable thread wants. The driver aggregates a point
// (bootstrap intervals, the samples file: 10-70 ms each) while the launch's next point runs; at normal priority
// that work preempted pinned ranks that filled every core, in 4 ms slices, and grew their mean.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "lib/core/status.h"

namespace commbench {

class IdleQueue {
 public:
  IdleQueue();
  ~IdleQueue();  // runs what is still queued, then stops
  IdleQueue(const IdleQueue&) = delete;
  IdleQueue& operator=(const IdleQueue&) = delete;

  // Queues a task. After one failed, later tasks are dropped unrun: the first failure is the run's.
  void Post(std::function<Status()> task);
  // The first failure so far (OK while none): the caller stops early on it without waiting for the queue.
  Status FirstFailure() const;
  // Waits until every posted task has run (or was dropped) and returns the first failure.
  Status Drain();
  // Whether the thread runs under SCHED_IDLE (false where the kernel refused: the tasks still run).
  bool idle_policy() const;

 private:
  void Loop();

  mutable std::mutex mutex_;
  std::condition_variable posted_, done_;
  std::deque<std::function<Status()>> tasks_;
  bool running_ = false;  // a task is being run outside the lock
  bool stop_ = false;
  bool idle_policy_ = false;
  Status failure_;
  std::thread thread_;
};

}  // namespace commbench
