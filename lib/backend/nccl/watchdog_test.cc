#include "lib/backend/nccl/watchdog.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace commbench::nccl {
namespace {

using std::chrono::milliseconds;

Watchdog::Options Opts(int timeout_ms) {
  Watchdog::Options o;
  o.who = "nccl rank 3 (group 1, group rank 1, GPU 0)";
  o.timeout = milliseconds(timeout_ms);
  o.interval = milliseconds(2);
  return o;
}

TEST(WatchdogTest, QuietCommunicatorIsLeftAlone) {
  std::atomic<int> polls{0};
  std::atomic<int> aborts{0};
  {
    Watchdog dog(
        Opts(1000),
        [&] {
          ++polls;
          return OkStatus();
        },
        [&] { ++aborts; });
    for (int i = 0; i < 5; ++i) {
      auto scope = dog.Guard("allreduce f32 400 B");
      std::this_thread::sleep_for(milliseconds(5));
    }
    std::this_thread::sleep_for(milliseconds(20));
    EXPECT_FALSE(dog.aborted());
    EXPECT_TRUE(dog.failure().ok());
  }
  EXPECT_GT(polls.load(), 0);
  EXPECT_EQ(aborts.load(), 0);
}

TEST(WatchdogTest, AsyncErrorAbortsOnceAndNamesRankAndCall) {
  std::atomic<int> aborts{0};
  std::atomic<bool> broken{false};
  Watchdog dog(
      Opts(10000), [&] { return broken ? Internal("ncclRemoteError: remote process exited") : OkStatus(); },
      [&] { ++aborts; });
  auto scope = dog.Guard("cudaStreamSynchronize after allreduce f32 4096 B");
  broken = true;
  for (int i = 0; i < 500 && !dog.aborted(); ++i) std::this_thread::sleep_for(milliseconds(2));
  ASSERT_TRUE(dog.aborted());
  std::this_thread::sleep_for(milliseconds(20));  // keeps failing polls: still one abort
  EXPECT_EQ(aborts.load(), 1);
  Status f = dog.failure();
  EXPECT_EQ(f.code(), StatusCode::kInternal);
  EXPECT_EQ(f.message(),
            "nccl rank 3 (group 1, group rank 1, GPU 0): asynchronous error during cudaStreamSynchronize after "
            "allreduce f32 4096 B: ncclRemoteError: remote process exited; communicator aborted");
}

TEST(WatchdogTest, BlockedCallPastTimeoutIsAborted) {
  std::atomic<int> aborts{0};
  std::atomic<bool> released{false};
  Watchdog dog(
      Opts(30), [] { return OkStatus(); },
      [&] {
        ++aborts;
        released = true;  // as ncclCommAbort releases the blocked stream synchronisation
      });
  auto start = std::chrono::steady_clock::now();
  {
    auto scope = dog.Guard("reduce_scatter bf16 1048576 B");
    while (!released) std::this_thread::sleep_for(milliseconds(1));
  }
  auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_GE(waited, milliseconds(30));
  EXPECT_LT(waited, milliseconds(2000));
  EXPECT_EQ(aborts.load(), 1);
  Status f = dog.failure();
  EXPECT_EQ(f.code(), StatusCode::kDeadlineExceeded);
  EXPECT_NE(f.message().find("nccl rank 3 (group 1, group rank 1, GPU 0): reduce_scatter bf16 1048576 B did not "
                             "complete within 30 ms"),
            std::string::npos)
      << f.message();
}

TEST(WatchdogTest, IdleTimeDoesNotCount) {
  std::atomic<int> aborts{0};
  Watchdog dog(
      Opts(50), [] { return OkStatus(); }, [&] { ++aborts; });
  std::this_thread::sleep_for(milliseconds(150));  // no call in progress: nothing can time out
  { auto scope = dog.Guard("barrier"); }
  std::this_thread::sleep_for(milliseconds(20));
  EXPECT_EQ(aborts.load(), 0);
}

TEST(WatchdogTest, DestructionIsPrompt) {
  auto start = std::chrono::steady_clock::now();
  {
    Watchdog::Options o = Opts(1000);
    o.interval = milliseconds(10000);
    Watchdog dog(
        o, [] { return OkStatus(); }, [] {});
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(1000));
}

TEST(PollUntilTest, ReturnsWhenDone) {
  int calls = 0;
  Status s = PollUntil([&]() -> StatusOr<bool> { return ++calls >= 3; }, milliseconds(1000),
                       std::chrono::microseconds(100), "ncclCommInitRank");
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(calls, 3);
}

TEST(PollUntilTest, PassesErrorsThrough) {
  Status s = PollUntil([]() -> StatusOr<bool> { return Internal("ncclSystemError"); }, milliseconds(1000),
                       std::chrono::microseconds(100), "ncclCommInitRank");
  EXPECT_EQ(s.message(), "ncclSystemError");
}

TEST(PollUntilTest, TimesOut) {
  Status s = PollUntil([]() -> StatusOr<bool> { return false; }, milliseconds(20), std::chrono::microseconds(500),
                       "ncclCommInitRank");
  EXPECT_EQ(s.code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(s.message(), "ncclCommInitRank did not complete within 20 ms");
}

}  // namespace
}  // namespace commbench::nccl
