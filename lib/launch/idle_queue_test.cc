#include "lib/launch/idle_queue.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <vector>

namespace commbench {
namespace {

TEST(IdleQueue, RunsTasksInTheOrderPosted) {
  IdleQueue q;
  std::vector<int> order;  // only the queue's thread touches it until Drain returns
  for (int i = 0; i < 50; ++i) {
    q.Post([&order, i] {
      order.push_back(i);
      return OkStatus();
    });
  }
  ASSERT_TRUE(q.Drain().ok());
  ASSERT_EQ(order.size(), 50u);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(order[static_cast<size_t>(i)], i);
}

TEST(IdleQueue, KeepsTheFirstFailureAndDropsWhatWasPostedAfterIt) {
  IdleQueue q;
  std::atomic<int> ran{0};
  q.Post([&] { return ++ran, OkStatus(); });
  q.Post([&] { return ++ran, Internal("disk full writing point 2"); });
  q.Post([&] { return ++ran, Internal("a later failure"); });
  q.Post([&] { return ++ran, OkStatus(); });
  Status s = q.Drain();
  EXPECT_EQ(s.message(), "disk full writing point 2");
  EXPECT_EQ(q.FirstFailure().message(), "disk full writing point 2");
  EXPECT_EQ(ran.load(), 2);
}

TEST(IdleQueue, TasksRunUnderSchedIdleAndTheCallerKeepsItsPolicy) {
  IdleQueue q;
  int policy_in_task = -1;
  q.Post([&] {
    policy_in_task = sched_getscheduler(0);  // 0: the calling thread
    return OkStatus();
  });
  ASSERT_TRUE(q.Drain().ok());
  EXPECT_TRUE(q.idle_policy());
  EXPECT_EQ(policy_in_task, SCHED_IDLE);
  EXPECT_EQ(sched_getscheduler(0), SCHED_OTHER);  // what this thread forks inherits
}

TEST(IdleQueue, TheDestructorRunsWhatIsStillQueued) {
  std::atomic<int> ran{0};
  {
    IdleQueue q;
    for (int i = 0; i < 10; ++i) q.Post([&] { return ++ran, OkStatus(); });
  }
  EXPECT_EQ(ran.load(), 10);
}

TEST(IdleQueue, DrainWithNothingPostedReturnsAtOnce) {
  IdleQueue q;
  EXPECT_TRUE(q.Drain().ok());
}

}  // namespace
}  // namespace commbench
