#include "lib/measure/run_queue.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

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

// A sample of /proc/thread-self/sched (Linux 6.18).
constexpr char kSched[] =
    "commbench (26722, #threads: 3)\n"
    "-------------------------------------------------------------------\n"
    "se.exec_start                                :      36418227.273141\n"
    "se.vruntime                                  :           298.992731\n"
    "se.sum_exec_runtime                          :             1.236371\n"
    "se.nr_migrations                             :                   17\n"
    "nr_switches                                  :                    2\n";

TEST(Migrations, ParsesTheNrMigrationsLine) {
  EXPECT_EQ(*ParseSchedNrMigrations(kSched), 17);
  EXPECT_FALSE(ParseSchedNrMigrations(""));
  EXPECT_FALSE(ParseSchedNrMigrations("se.exec_start : 1.0\nnr_switches : 2\n"));  // no such field
  EXPECT_FALSE(ParseSchedNrMigrations("se.nr_migrations : x\n"));
  EXPECT_FALSE(ParseSchedNrMigrations("se.nr_migrations : -1\n"));
  EXPECT_FALSE(ParseSchedNrMigrations("se.nr_migrations_cold : 3\n"));  // another field of that prefix
}

// The two facts the gate's rule stands on (lib/gate/disturbance.h): a thread allowed one CPU does not migrate
// however long it runs, and one whose affinity is moved to another CPU does.
TEST(Migrations, APinnedThreadMovesOnlyWhenItsAffinityChanges) {
  if (!ThreadMigrations()) GTEST_SKIP() << "no se.nr_migrations in /proc/thread-self/sched on this kernel";
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  }
  if (cpus.size() < 2) GTEST_SKIP() << "one CPU allowed";
  auto only = [](int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return set;
  };
  auto spin = [](int ms) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (std::chrono::steady_clock::now() < end) {
    }
  };
  int64_t pinned = -1, moved = -1;
  std::thread t([&] {
    cpu_set_t first = only(cpus[0]), second = only(cpus[1]);
    pthread_setaffinity_np(pthread_self(), sizeof first, &first);
    spin(5);  // on cpus[0] before counting
    const int64_t start = *ThreadMigrations();
    for (int i = 0; i < 20; ++i) {
      spin(5);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));  // wake-ups: where a free thread would move
    }
    pinned = *ThreadMigrations() - start;
    pthread_setaffinity_np(pthread_self(), sizeof second, &second);
    spin(5);
    moved = *ThreadMigrations() - start;
  });
  t.join();
  EXPECT_EQ(pinned, 0);
  EXPECT_GE(moved, 1);
}

}  // namespace
}  // namespace commbench
