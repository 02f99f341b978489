#include "lib/measure/loop.h"

#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "lib/measure/pattern.h"
#include "lib/stats/summary.h"

namespace commbench {
namespace {

int64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

rusage ProcessUsage() {
  rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru;
}

double Seconds(const timeval& tv) { return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) * 1e-6; }

// Iteration numbers of the patterns: the first and last timed iterations get their own inputs, so a result
// left over from another iteration fails the check; unchecked iterations reuse one precomputed input.
constexpr uint64_t kFirstIter = 1;
constexpr uint64_t kMiddleIter = 2;
constexpr uint64_t kLastIter = 3;

class PointRunner {
 public:
  PointRunner(const OpRequest& request, const RankPlace& place, Work* work, Communicator* group, Agreement* world,
              const LoopOptions& options)
      : request_(request),
        place_(place),
        work_(work),
        group_(group),
        world_(world),
        options_(options),
        sequential_(options.concurrency == Concurrency::kSequential),
        synced_step_(SyncedStep(options.sync)),
        step_(options.injected_delay_us > 0 ? &PointRunner::DelayedStep : synced_step_),
        injected_delay_(options.injected_delay_us) {
    FillInput(request_, place_.group_rank, place_.group_size, kFirstIter, &first_input_);
    FillInput(request_, place_.group_rank, place_.group_size, kMiddleIter, &middle_input_);
    FillInput(request_, place_.group_rank, place_.group_size, kLastIter, &last_input_);
    output_.resize(RecvCount(request_, place_.group_size) * SizeOf(request_.dtype));
  }

  StatusOr<RankResult> Run() {
    result_.algo = work_->algo();
    for (int64_t i = 0; i < options_.warmup; ++i) RETURN_IF_ERROR(Iteration(middle_input_, nullptr));
    result_.warmup = options_.warmup;
    ASSIGN_OR_RETURN(int64_t planned, PlanIterations());
    if (!sequential_) return Timed(planned);
    // One group at a time; the others wait at the world barrier for their turn.
    const int groups = place_.world / place_.group_size;
    for (int turn = 0; turn < groups; ++turn) {
      RETURN_IF_ERROR(world_->Barrier());
      if (turn == place_.group) RETURN_IF_ERROR(Timed(planned).status());
    }
    RETURN_IF_ERROR(world_->Barrier());
    return result_;
  }

 private:
  StatusOr<RankResult> Timed(int64_t planned) {
    if (!sequential_) RETURN_IF_ERROR(world_->Barrier());  // all groups start together
    const rusage before = ProcessUsage();
    result_.start_ns = MonotonicNs();
    RETURN_IF_ERROR(CheckedIteration(first_input_, kFirstIter));
    // Gloo-style transports write into peers' buffers: nobody starts the next iteration before all have read.
    RETURN_IF_ERROR(group_->Barrier());
    int64_t done = 1;
    int64_t batch = std::max<int64_t>(planned - 2, 0);
    while (true) {
      for (int64_t i = 0; i < batch; ++i) RETURN_IF_ERROR(Iteration(middle_input_, &result_.samples_us));
      done += batch;
      if (options_.iters > 0 || sequential_) break;
      ASSIGN_OR_RETURN(bool more, NeedMore(done));
      if (!more) break;
      batch = std::max<int64_t>(std::min(planned, options_.max_iters - done - 1), 1);
    }
    RETURN_IF_ERROR(CheckedIteration(last_input_, kLastIter));
    result_.end_ns = MonotonicNs();
    const rusage after = ProcessUsage();
    result_.cpu_user_s = Seconds(after.ru_utime) - Seconds(before.ru_utime);
    result_.cpu_sys_s = Seconds(after.ru_stime) - Seconds(before.ru_stime);
    result_.vol_ctx = after.ru_nvcsw - before.ru_nvcsw;
    result_.invol_ctx = after.ru_nivcsw - before.ru_nivcsw;
    return result_;
  }

  // One timed iteration: the input copy is outside the clock; the collective and the sync strategy inside, and
  // nothing else (the step was chosen before the loop).
  Status Iteration(const std::vector<char>& input, std::vector<double>* samples) {
    RETURN_IF_ERROR(work_->SetInput(input.data(), input.size()));
    auto t0 = std::chrono::steady_clock::now();
    RETURN_IF_ERROR((this->*step_)());
    auto t1 = std::chrono::steady_clock::now();
    if (samples) {
      samples->push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
      double device_us = work_->last_device_time_us();
      if (device_us >= 0) result_.device_samples_us.push_back(device_us);
    }
    return OkStatus();
  }

  // The timed steps: the collective, then what the iteration waits for (GPU syncs are the backend's, inside Run).
  using Step = Status (PointRunner::*)();
  static Step SyncedStep(Sync sync) {
    switch (sync) {
      case Sync::kGroupBarrier:
        return &PointRunner::RunThenGroupBarrier;
      case Sync::kWorldBarrier:
        return &PointRunner::RunThenWorldBarrier;
      case Sync::kNone:
      case Sync::kStream:
      case Sync::kEvent:
      case Sync::kDevice:
        break;
    }
    return &PointRunner::RunOnly;
  }
  Status RunOnly() { return work_->Run(); }
  Status RunThenGroupBarrier() {
    RETURN_IF_ERROR(work_->Run());
    return group_->Barrier();
  }
  Status RunThenWorldBarrier() {
    RETURN_IF_ERROR(work_->Run());
    return world_->Barrier();
  }
  // Test-only fault injection: this rank is slow every iteration.
  Status DelayedStep() {
    RETURN_IF_ERROR((this->*synced_step_)());
    std::this_thread::sleep_for(injected_delay_);
    return OkStatus();
  }

  Status CheckedIteration(const std::vector<char>& input, uint64_t iter) {
    RETURN_IF_ERROR(Iteration(input, &result_.samples_us));
    RETURN_IF_ERROR(work_->GetOutput(output_.data(), output_.size()));
    Status check = CheckOutput(request_, place_.group_rank, place_.group_size, iter, output_);
    if (!check.ok() && result_.correct) {
      result_.correct = false;
      result_.error = (iter == kFirstIter ? "first timed iteration: " : "last timed iteration: ") + check.message();
    }
    return OkStatus();
  }

  // Fixed --iters, or as many as the time budget allows at the warm-up's pace (the slowest rank's), agreed by all.
  StatusOr<int64_t> PlanIterations() {
    if (options_.iters > 0) return options_.iters;
    auto t0 = std::chrono::steady_clock::now();
    int64_t probes = std::max<int64_t>(options_.warmup, 3);
    for (int64_t i = 0; i < probes; ++i) RETURN_IF_ERROR(Iteration(middle_input_, nullptr));
    std::vector<double> per_iter_s{std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() /
                                   static_cast<double>(probes)};
    RETURN_IF_ERROR(world_->MaxAll(&per_iter_s));
    double n = options_.time_budget_s / std::max(per_iter_s[0], 1e-9);
    return std::clamp<int64_t>(static_cast<int64_t>(n), options_.min_iters, options_.max_iters);
  }

  // Adaptive: another batch while any rank's 95% CI of the median is wider than the target, within twice the
  // time budget. Every rank computes the same answer from the agreed maxima.
  StatusOr<bool> NeedMore(int64_t done) {
    Summary s = Summarize(result_.samples_us);
    double relative_half_width = s.p50 > 0 ? (s.ci95_hi - s.ci95_lo) / 2 / s.p50 : 0;
    double elapsed_s = static_cast<double>(MonotonicNs() - result_.start_ns) * 1e-9;
    std::vector<double> agreed{relative_half_width, elapsed_s};
    RETURN_IF_ERROR(world_->MaxAll(&agreed));
    return agreed[0] > options_.target_ci && agreed[1] < 2 * options_.time_budget_s &&
           done + 1 < options_.max_iters;
  }

  OpRequest request_;
  RankPlace place_;
  Work* work_;
  Communicator* group_;
  Agreement* world_;
  LoopOptions options_;
  const bool sequential_;  // groups take turns
  const Step synced_step_;
  const Step step_;
  const std::chrono::duration<double, std::micro> injected_delay_;
  std::vector<char> first_input_, middle_input_, last_input_, output_;
  RankResult result_;
};

}  // namespace

StatusOr<RankResult> RunPointLoop(const OpRequest& request, const RankPlace& place, Work* work, Communicator* group,
                                  Agreement* world, const LoopOptions& options) {
  return PointRunner(request, place, work, group, world, options).Run();
}

}  // namespace commbench
