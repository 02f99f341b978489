#include "lib/measure/run_queue.h"

#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

namespace commbench {
namespace {

TEST(RunQueue, ParsesTheSecondFieldAsSeconds) {
  EXPECT_DOUBLE_EQ(*ParseSchedstatRunDelayS("86439 2500000000 1\n"), 2.5);
  EXPECT_FALSE(ParseSchedstatRunDelayS(""));
  EXPECT_FALSE(ParseSchedstatRunDelayS("86439"));
  EXPECT_FALSE(ParseSchedstatRunDelayS("x 1 2"));
}

// Two busy threads on one CPU: each waits for the other's slices, about as long as it runs. A thread alone on a
// CPU waits (almost) never. Bounds far from either: what is checked is that the reading is the run queue's.
TEST(RunQueue, AThreadSharingItsOnlyCpuWithABusyOneWaitsForIt) {
  if (!ThreadRunQueueWaitS()) GTEST_SKIP() << "no /proc/thread-self/schedstat on this kernel";
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  ASSERT_EQ(sched_getaffinity(0, sizeof cpus, &cpus), 0);
  int cpu = 0;
  while (!CPU_ISSET(cpu, &cpus)) ++cpu;
  CPU_ZERO(&cpus);
  CPU_SET(cpu, &cpus);
  std::atomic<bool> stop{false};
  auto spin_on_cpu = [&] {
    pthread_setaffinity_np(pthread_self(), sizeof cpus, &cpus);
    while (!stop.load(std::memory_order_relaxed)) {
    }
  };
  std::thread rival(spin_on_cpu);
  std::optional<double> waited;
  std::thread measured([&] {
    pthread_setaffinity_np(pthread_self(), sizeof cpus, &cpus);
    const double before = *ThreadRunQueueWaitS();
    const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(400);
    while (std::chrono::steady_clock::now() < end) {
    }
    waited = *ThreadRunQueueWaitS() - before;
  });
  measured.join();
  stop = true;
  rival.join();
  ASSERT_TRUE(waited);
  EXPECT_GT(*waited, 0.05) << "of 0.4 s on a CPU shared with a busy thread";
}

}  // namespace
}  // namespace commbench
