// The real per-point loop over real Gloo thread ranks, with Work wrappers that plant faults in the middle of the
// timed loop or stand in for a GPU's enqueue-then-wait.
#include "lib/measure/loop.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "lib/backend/testing/thread_group.h"

namespace commbench {
namespace {

// World agreement between thread ranks.
class ThreadAgreement : public Agreement {
 public:
  explicit ThreadAgreement(int n) : n_(n) {}
  Status Barrier() override {
    std::vector<double> none;
    return MaxAll(&none);
  }
  Status MaxAll(std::vector<double>* values) override {
    std::unique_lock<std::mutex> lock(mu_);
    const uint64_t generation = generation_;
    if (arrived_ == 0) {
      max_ = *values;
    } else {
      for (size_t i = 0; i < max_.size(); ++i) max_[i] = std::max(max_[i], (*values)[i]);
    }
    // The result is kept apart from the running max: the first rank of the next round may start a new max before
    // every waiter of this round has woken to read it.
    if (++arrived_ == n_) {
      arrived_ = 0;
      result_ = max_;
      ++generation_;
      done_.notify_all();
    } else {
      done_.wait(lock, [&] { return generation_ != generation; });
    }
    *values = result_;
    return OkStatus();
  }

 private:
  const int n_;
  std::mutex mu_;
  std::condition_variable done_;
  int arrived_ = 0;
  uint64_t generation_ = 0;
  std::vector<double> max_;     // this round's so far
  std::vector<double> result_;  // the last completed round's
};

// Forwards to a real Work; skips the real collective in one Run (counted from the first, warm-up included), so
// that the buffer keeps what it held: the race a check of only the first and last iterations would miss.
class SkipOneRun : public Work {
 public:
  SkipOneRun(std::unique_ptr<Work> work, int64_t skip) : work_(std::move(work)), skip_(skip) {}
  Status SetInput(const void* host, size_t bytes) override { return work_->SetInput(host, bytes); }
  Status Run() override { return ++runs_ == skip_ ? OkStatus() : work_->Run(); }
  Status GetOutput(void* host, size_t bytes) override { return work_->GetOutput(host, bytes); }
  std::string algo() const override { return work_->algo(); }

 private:
  std::unique_ptr<Work> work_;
  const int64_t skip_;
  int64_t runs_ = 0;
};

// A GPU-like Work: Run only "enqueues" (the real collective runs at once, but its cost is owed); Wait pays
// `per_run` for every Run since the last Wait, as a device draining its queue would. Counts its calls into
// `calls`, which outlives it.
struct Calls {
  std::atomic<int64_t> waits{0}, inputs{0}, restores{0};
};
class EnqueueThenWait : public Work {
 public:
  EnqueueThenWait(std::unique_ptr<Work> work, std::chrono::microseconds per_run, Calls* calls)
      : work_(std::move(work)), per_run_(per_run), calls_(calls) {}
  Status SetInput(const void* host, size_t bytes) override {
    ++calls_->inputs;
    return work_->SetInput(host, bytes);
  }
  Status RestoreInput(const void* host, size_t bytes) override {
    ++calls_->restores;
    return work_->RestoreInput(host, bytes);
  }
  Status Run() override {
    ++queued_;
    return work_->Run();
  }
  Status Wait() override {
    ++calls_->waits;
    std::this_thread::sleep_for(per_run_ * queued_);
    queued_ = 0;
    return OkStatus();
  }
  Status GetOutput(void* host, size_t bytes) override { return work_->GetOutput(host, bytes); }
  std::string algo() const override { return work_->algo(); }

 private:
  std::unique_ptr<Work> work_;
  const std::chrono::microseconds per_run_;
  Calls* calls_;
  int64_t queued_ = 0;
};

OpRequest SmallAllreduce() {
  OpRequest request;
  request.op = Collective::kAllreduce;
  request.dtype = DataType::kF32;
  request.count = 100;  // 400 B
  request.in_place = true;
  return request;
}

RankPlace PlaceOf(int rank, int n) { return RankPlace{rank, n, 0, rank, n, rank}; }

constexpr int kRanks = 2;

// Runs the loop on kRanks Gloo thread ranks; `wrap` may wrap each rank's Work. Returns each rank's result.
std::vector<RankResult> RunLoop(const LoopOptions& options,
                                const std::function<std::unique_ptr<Work>(std::unique_ptr<Work>)>& wrap) {
  ThreadAgreement world(kRanks);
  std::vector<RankResult> results(kRanks);
  auto statuses = testing::RunThreads("gloo", kRanks, [&](int rank, Communicator* comm) -> Status {
    ASSIGN_OR_RETURN(auto work, comm->Prepare(SmallAllreduce()));
    std::unique_ptr<Work> wrapped = wrap(std::move(work));
    ASSIGN_OR_RETURN(results[rank],
                     RunPointLoop(SmallAllreduce(), PlaceOf(rank, kRanks), wrapped.get(), comm, &world, options));
    return OkStatus();
  });
  for (const Status& s : statuses) EXPECT_TRUE(s.ok()) << s.message();
  return results;
}

LoopOptions Fixed(int64_t iters, double check_rate) {
  LoopOptions options;
  options.warmup = 2;
  options.iters = iters;
  options.check_rate = check_rate;
  options.check_seed = 42;
  return options;
}

auto Skip(int64_t run) {
  return [run](std::unique_ptr<Work> w) -> std::unique_ptr<Work> {
    return std::make_unique<SkipOneRun>(std::move(w), run);
  };
}

// Warm-up runs 1-2, so Run 32 is timed iteration 30 of 50.
TEST(LoopTest, EveryIterationCheckedCatchesAMiddleIterationAndNamesIt) {
  for (const RankResult& r : RunLoop(Fixed(50, 1.0), Skip(32))) {
    EXPECT_EQ(r.checked_iters, 50);
    EXPECT_EQ(r.samples_us.size(), 50u);
    EXPECT_FALSE(r.correct);
    EXPECT_EQ(r.error.rfind("timed iteration 30 (sampled): ", 0), 0u) << r.error;
  }
}

// What the sampled checks add: with only the first and last checked, the same fault passes unseen.
TEST(LoopTest, FirstAndLastAloneMissAMiddleIteration) {
  for (const RankResult& r : RunLoop(Fixed(50, 0.0), Skip(32))) {
    EXPECT_EQ(r.checked_iters, 2);
    EXPECT_TRUE(r.correct) << r.error;
  }
}

TEST(LoopTest, ARandomSampleIsCheckedAndCountedAlike) {
  auto results = RunLoop(Fixed(400, 1.0 / 16), [](std::unique_ptr<Work> w) { return w; });
  ASSERT_EQ(results.size(), 2u);
  // 2 + a Binomial(398, 1/16) draw: 24.9 expected, outside [8, 60] with a probability far below 1e-6.
  EXPECT_GE(results[0].checked_iters, 10);
  EXPECT_LE(results[0].checked_iters, 60);
  EXPECT_EQ(results[0].checked_iters, results[1].checked_iters);  // the ranks agreed on which
  for (const RankResult& r : results) {
    EXPECT_TRUE(r.correct) << r.error;
    EXPECT_EQ(r.samples_us.size(), 400u);
  }
}

// Forwards to a real Work and says whether its output is held until the next Run (Work::OutputHeldUntilNextRun).
class DeclaredOutput : public Work {
 public:
  DeclaredOutput(std::unique_ptr<Work> work, bool held) : work_(std::move(work)), held_(held) {}
  Status SetInput(const void* host, size_t bytes) override { return work_->SetInput(host, bytes); }
  Status Run() override { return work_->Run(); }
  Status GetOutput(void* host, size_t bytes) override { return work_->GetOutput(host, bytes); }
  std::string algo() const override { return work_->algo(); }
  bool OutputHeldUntilNextRun() const override { return held_; }

 private:
  std::unique_ptr<Work> work_;
  const bool held_;
};

// Forwards to a real group and counts its barriers.
class CountedBarriers : public Communicator {
 public:
  explicit CountedBarriers(Communicator* comm) : comm_(comm) {}
  StatusOr<std::unique_ptr<Work>> Prepare(const OpRequest& request) override { return comm_->Prepare(request); }
  Status Barrier() override {
    ++barriers;
    return comm_->Barrier();
  }
  int64_t barriers = 0;

 private:
  Communicator* comm_;
};

// Every iteration checked (50): a group barrier follows the first check always, and each sampled one (48) only
// where the backend says a peer could write the output before it was read.
TEST(LoopTest, SampledChecksHoldTheGroupOnlyWhereAPeerCouldOverwriteTheOutput) {
  for (bool held : {true, false}) {
    ThreadAgreement world(kRanks);
    std::vector<RankResult> results(kRanks);
    std::vector<int64_t> barriers(kRanks);
    auto statuses = testing::RunThreads("gloo", kRanks, [&](int rank, Communicator* comm) -> Status {
      CountedBarriers group(comm);
      ASSIGN_OR_RETURN(auto work, comm->Prepare(SmallAllreduce()));
      DeclaredOutput declared(std::move(work), held);
      ASSIGN_OR_RETURN(results[rank], RunPointLoop(SmallAllreduce(), PlaceOf(rank, kRanks), &declared, &group, &world,
                                                   Fixed(50, 1.0)));
      barriers[rank] = group.barriers;
      return OkStatus();
    });
    for (const Status& s : statuses) ASSERT_TRUE(s.ok()) << s.message();
    for (int rank = 0; rank < kRanks; ++rank) {
      EXPECT_TRUE(results[rank].correct) << results[rank].error;
      EXPECT_EQ(results[rank].checked_iters, 50);
      EXPECT_EQ(barriers[rank], held ? 1 : 49) << "held " << held;
    }
  }
}

// A fault in the first or the last iteration is caught and named at any rate.
TEST(LoopTest, FirstAndLastIterationsAreNamed) {
  for (const RankResult& r : RunLoop(Fixed(20, 0.0), Skip(3))) {
    EXPECT_EQ(r.error.rfind("timed iteration 1 (first): ", 0), 0u) << r.error;
  }
  for (const RankResult& r : RunLoop(Fixed(20, 0.0), Skip(22))) {
    EXPECT_EQ(r.error.rfind("timed iteration 20 (last): ", 0), 0u) << r.error;
  }
}

// GPU, --sync none: the clock covers the device's work (the wait), not only the enqueue, over batches.
TEST(LoopTest, GpuSyncNoneTimesBatchesEndedByAWait) {
  LoopOptions options = Fixed(42, 0.0);
  options.device = DeviceKind::kGpu;
  options.sync = Sync::kNone;
  Calls calls;
  auto results = RunLoop(options, [&](std::unique_ptr<Work> w) -> std::unique_ptr<Work> {
    return std::make_unique<EnqueueThenWait>(std::move(w), std::chrono::microseconds(2000), &calls);
  });
  for (const RankResult& r : results) {
    ASSERT_EQ(r.samples_us.size(), 42u);
    // Every iteration owes 2 ms of device time: a clock around the enqueue alone would see microseconds.
    EXPECT_GE(*std::min_element(r.samples_us.begin(), r.samples_us.end()), 1900.0);
  }
  // Warm-up: one unit of 2; timed: first alone, 40 middle in 2 batches of 20, last alone. One wait per unit; an
  // input set per unit, except the second middle batch, which repeats the first's (in place: restored).
  EXPECT_EQ(calls.waits, 5 * kRanks);
  EXPECT_EQ(calls.inputs, 4 * kRanks);
  EXPECT_EQ(calls.restores, 1 * kRanks);
}

// GPU, --sync stream: Run waits itself; the loop adds no wait and times each iteration.
TEST(LoopTest, GpuSyncStreamTimesEachIterationWithoutAWait) {
  LoopOptions options = Fixed(10, 0.0);
  options.device = DeviceKind::kGpu;
  options.sync = Sync::kStream;
  Calls calls;
  std::vector<RankResult> results = RunLoop(options, [&](std::unique_ptr<Work> w) -> std::unique_ptr<Work> {
    return std::make_unique<EnqueueThenWait>(std::move(w), std::chrono::microseconds(2000), &calls);
  });
  EXPECT_EQ(calls.waits, 0);
  for (const RankResult& r : results) {
    ASSERT_EQ(r.samples_us.size(), 10u);
    EXPECT_LT(*std::min_element(r.samples_us.begin(), r.samples_us.end()), 1900.0);  // the fake never waited
  }
}

}  // namespace
}  // namespace commbench

namespace commbench {
namespace {

// A Work whose Run costs a fixed time on top of the real collective.
class FixedCost : public Work {
 public:
  FixedCost(std::unique_ptr<Work> work, std::chrono::microseconds cost) : work_(std::move(work)), cost_(cost) {}
  Status SetInput(const void* host, size_t bytes) override { return work_->SetInput(host, bytes); }
  Status Run() override {
    std::this_thread::sleep_for(cost_);
    return work_->Run();
  }
  Status GetOutput(void* host, size_t bytes) override { return work_->GetOutput(host, bytes); }
  std::string algo() const override { return work_->algo(); }

 private:
  std::unique_ptr<Work> work_;
  const std::chrono::microseconds cost_;
};

// TEST ONLY --test-only-uniform-slowdown: every op of every rank is longer by the fraction of the ops' median
// before the timed loop. Each op here costs at least 2 ms, so with 50 % planted none may take less than 3 ms
// (load on a shared host only adds; how close to 1.5x the median lands is what bench/gate_power.sh measures).
TEST(LoopTest, UniformSlowdownAddsItsFractionToEveryOp) {
  auto wrap = [](std::unique_ptr<Work> w) -> std::unique_ptr<Work> {
    return std::make_unique<FixedCost>(std::move(w), std::chrono::microseconds(2000));
  };
  LoopOptions options = Fixed(40, 0);
  options.uniform_slowdown = 0.5;
  const std::vector<RankResult> slowed = RunLoop(options, wrap);
  for (const RankResult& r : slowed) {
    EXPECT_TRUE(r.correct) << r.error;
    ASSERT_EQ(r.samples_us.size(), 40u);
    EXPECT_GE(*std::min_element(r.samples_us.begin(), r.samples_us.end()), 3000.0)
        << ::testing::PrintToString(r.samples_us);
  }
}

}  // namespace
}  // namespace commbench
