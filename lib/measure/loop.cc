#include "lib/measure/loop.h"

#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <optional>
#include <random>
#include <thread>

#include "lib/backend/peer_copies.h"
#include "lib/core/affinity.h"
#include "lib/core/cpu_quota.h"
#include "lib/measure/pattern.h"
#include "lib/measure/run_queue.h"
#include "lib/stats/summary.h"

namespace commbench {
namespace {

using Clock = std::chrono::steady_clock;  // CLOCK_MONOTONIC, as the progress page's timestamps

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

double SecondsSince(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Read once: a process does not change cgroups between its points.
const CpuQuota& ProcessCpuQuota() {
  static const CpuQuota quota = ReadCpuQuota();
  return quota;
}

// The enforcement period of a cgroup CPU quota below the cores, which a timed loop spans several of
// (loop_defaults::kQuotaMinPeriods, kQuotaPeriods); 0 without a binding quota. Read once, as the quota.
double BindingQuotaPeriodS() {
  static const double period_s = [] {
    const CpuQuota& quota = ProcessCpuQuota();
    return QuotaBinds(quota.cpus, static_cast<double>(AllowedCpus().size())) ? quota.period_s : 0.0;
  }();
  return period_s;
}

// The share of the enforcement periods between two readings in which the cgroup ran out of quota; -1 without
// both readings or a period between them.
double ThrottledShare(const std::optional<CpuThrottling>& before, const std::optional<CpuThrottling>& after) {
  if (!before || !after || after->periods <= before->periods) return -1;
  return static_cast<double>(after->throttled_periods - before->throttled_periods) /
         static_cast<double>(after->periods - before->periods);
}

// Iteration numbers of the patterns: the first and last timed iterations get their own inputs, and so does each
// sampled one (its timed index moved past these), so a result left over from another iteration fails the check;
// unchecked iterations reuse one precomputed input.
constexpr uint64_t kFirstIter = 1;
constexpr uint64_t kMiddleIter = 2;
constexpr uint64_t kLastIter = 3;
uint64_t SampledIter(int64_t timed_index) { return 3 + static_cast<uint64_t>(timed_index); }

constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

// Which middle iterations are checked: gaps drawn from one seed, so that every rank of a group draws the same.
class CheckSampler {
 public:
  CheckSampler(double rate, uint64_t seed) : rate_(std::min(rate, 1.0)), random_(seed) {}
  // The timed index of the next checked iteration after `index`.
  int64_t NextAfter(int64_t index) {
    if (rate_ <= 0) return kNever;
    if (rate_ >= 1) return index + 1;
    return index + 1 + std::geometric_distribution<int64_t>(rate_)(random_);
  }

 private:
  const double rate_;
  std::mt19937_64 random_;
};

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
        timing_(PlanTiming(options.device, options.sync)),
        synced_step_(timing_.barrier == BarrierScope::kNone ? &PointRunner::RunOnly : &PointRunner::RunThenBarrier),
        step_(options.injected_delay_us > 0 ? &PointRunner::DelayedStep : synced_step_),
        injected_delay_(options.injected_delay_us),
        arrival_delay_(options.arrival_delay_us),
        sampler_(options.check_rate, options.check_seed),
        keeps_input_(work->KeepsInput()) {
    FillInput(request_, place_.group_rank, place_.group_size, kFirstIter, &first_input_);
    FillInput(request_, place_.group_rank, place_.group_size, kMiddleIter, &middle_input_);
    FillInput(request_, place_.group_rank, place_.group_size, kLastIter, &last_input_);
    output_.resize(RecvCount(request_, place_.group_size) * SizeOf(request_.dtype));
  }

  StatusOr<RankResult> Run() {
    const auto t0 = Clock::now();
    result_.algo = work_->algo();
    EnterPhase(ProgressPhase::kWarmup);
    RETURN_IF_ERROR(Repeat(middle_input_, options_.warmup, nullptr));
    result_.warmup = options_.warmup;
    RETURN_IF_ERROR(PlanSlowdown());
    ASSIGN_OR_RETURN(int64_t planned, PlanIterations());
    result_.warmup_s = SecondsSince(t0);
    if (!sequential_) return Timed(planned);
    // One group at a time; the others wait at the world barrier for their turn.
    const int groups = place_.world / place_.group_size;
    for (int turn = 0; turn < groups; ++turn) {
      RETURN_IF_ERROR(TimedBarrier(world_, &result_.barriers_s));
      if (turn == place_.group) RETURN_IF_ERROR(Timed(planned).status());
    }
    RETURN_IF_ERROR(TimedBarrier(world_, &result_.barriers_s));
    return result_;
  }

 private:
  // A barrier whose wait is added to `*seconds`.
  template <typename Party>
  static Status TimedBarrier(Party* party, double* seconds) {
    const auto t0 = Clock::now();
    Status s = party->Barrier();
    *seconds += SecondsSince(t0);
    return s;
  }

  StatusOr<RankResult> Timed(int64_t planned) {
    if (!sequential_) RETURN_IF_ERROR(TimedBarrier(world_, &result_.barriers_s));  // all groups start together
    EnterPhase(ProgressPhase::kTimed);
    const rusage before = ProcessUsage();
    const std::optional<double> wait_before = ThreadRunQueueWaitS();
    const std::optional<int64_t> migrations_before = ThreadMigrations();
    const std::optional<CpuThrottling> throttling_before = ReadCpuThrottling(ProcessCpuQuota().stat_path);
    const SocketBytes tcp_before = ProcessTcpBytes();
    const uint64_t copied_before = t_peer_bytes_copied;
    result_.start_ns = MonotonicNs();
    RETURN_IF_ERROR(CheckedIteration(first_input_, kFirstIter, "first"));
    next_check_ = sampler_.NextAfter(1);
    PrepareSampledInput();
    // Gloo-style transports write into peers' buffers: nobody starts the next iteration before all have read.
    RETURN_IF_ERROR(TimedBarrier(group_, &in_window_barriers_s_));
    planned_ = planned;
    int64_t batch = std::max<int64_t>(planned - 2, 0);
    while (true) {
      const auto batch_start = Clock::now();
      RETURN_IF_ERROR(Middle(batch));
      if (options_.iters > 0 || sequential_) break;
      const double pace_s = SecondsSince(batch_start) / static_cast<double>(std::max<int64_t>(batch, 1));
      ASSIGN_OR_RETURN(batch, NextBatch(pace_s));
      if (batch == 0) break;
    }
    RETURN_IF_ERROR(CheckedIteration(last_input_, kLastIter, "last"));
    result_.end_ns = MonotonicNs();
    result_.peer_bytes_copied = t_peer_bytes_copied - copied_before;
    result_.tcp = Since(tcp_before, ProcessTcpBytes());
    AccountWindow();
    const std::optional<double> wait_after = ThreadRunQueueWaitS();
    if (wait_before && wait_after) result_.runqueue_wait_s = std::max(*wait_after - *wait_before, 0.0);
    const std::optional<int64_t> migrations_after = ThreadMigrations();
    if (migrations_before && migrations_after) {
      result_.migrations = std::max<int64_t>(*migrations_after - *migrations_before, 0);
    }
    result_.cpu_quota = ProcessCpuQuota().cpus;
    result_.throttled_share = ThrottledShare(throttling_before, ReadCpuThrottling(ProcessCpuQuota().stat_path));
    const rusage after = ProcessUsage();
    result_.cpu_user_s = Seconds(after.ru_utime) - Seconds(before.ru_utime);
    result_.cpu_sys_s = Seconds(after.ru_stime) - Seconds(before.ru_stime);
    result_.vol_ctx = after.ru_nvcsw - before.ru_nvcsw;
    result_.invol_ctx = after.ru_nivcsw - before.ru_nivcsw;
    EnterPhase(ProgressPhase::kPointDone);
    return result_;
  }

  // `n` middle timed iterations: on the shared input, except those the sampler picked, which are checked.
  Status Middle(int64_t n) {
    const int64_t end = done_ + n;
    while (done_ < end) {
      const int64_t index = done_ + 1;  // 1-based timed index
      if (index == next_check_) {
        RETURN_IF_ERROR(CheckedIteration(sampled_input_, SampledIter(index), "sampled"));
        next_check_ = sampler_.NextAfter(index);
        PrepareSampledInput();
        // Only where a peer's next op may write this rank's output before the check read it. Elsewhere the group
        // goes on at once: 8 pairs of 400 B Gloo allreduces on 2 cores read 154-217 us per op with this barrier,
        // 150-157 without it (bench/archive.md, "Headline vs the user's loop").
        if (!work_->OutputHeldUntilNextRun()) RETURN_IF_ERROR(TimedBarrier(group_, &result_.checks_s));
        continue;
      }
      RETURN_IF_ERROR(Repeat(middle_input_, std::min(end, next_check_ - 1) - done_, &result_.samples_us));
    }
    return OkStatus();
  }

  // `n` iterations on one input, in units of the timing plan's batch.
  Status Repeat(const std::vector<char>& input, int64_t n, std::vector<double>* samples) {
    for (int64_t left = n; left > 0;) {
      const int64_t count = StopBeforeHang(std::min(left, timing_.batch));
      RETURN_IF_ERROR(Unit(input, count, samples));
      left -= count;
    }
    return OkStatus();
  }

  // One clocked unit: `count` iterations (1, or a GPU batch). The input copy is outside the clock; the collective,
  // the barrier and the waits of the timing plan inside, and nothing else (the step was chosen before the loop).
  // The shared middle input is copied in once where the backend keeps it (Work::KeepsInput), else restored
  // (Work::RestoreInput) before each unit that repeats it; the other inputs (first, last, sampled) are set
  // always, and the middle one again after them.
  Status Unit(const std::vector<char>& input, int64_t count, std::vector<double>* samples) {
    const bool again = &input == &middle_input_ && middle_input_set_;
    if (!again) {
      RETURN_IF_ERROR(work_->SetInput(input.data(), input.size()));
    } else if (!keeps_input_) {
      RETURN_IF_ERROR(work_->RestoreInput(input.data(), input.size()));
    }
    middle_input_set_ = &input == &middle_input_;
    if (arrival_delay_.count() > 0 && samples == &result_.samples_us) std::this_thread::sleep_for(arrival_delay_);
    if (options_.progress) options_.progress->Started(done_ + count);
    const auto t0 = Clock::now();
    for (int64_t i = 0; i < count; ++i) RETURN_IF_ERROR((this->*step_)());
    if (timing_.wait_for_batch) RETURN_IF_ERROR(work_->Wait());
    auto t1 = Clock::now();
    if (slowdown_per_op_.count() > 0) t1 = SpinFor(t1, slowdown_per_op_ * static_cast<double>(count));
    done_ += count;
    if (options_.progress) {
      options_.progress->Completed(done_,
                                   std::chrono::duration_cast<std::chrono::nanoseconds>(t1.time_since_epoch()).count());
    }
    if (samples) {
      const double per_iteration_us = std::chrono::duration<double, std::micro>(t1 - t0).count() / count;
      samples->insert(samples->end(), static_cast<size_t>(count), per_iteration_us);
      if (samples == &result_.samples_us) RecordEntries(t0, count, per_iteration_us);
      const double device_us = work_->last_device_time_us();
      if (device_us >= 0) result_.device_samples_us.push_back(device_us);
    }
    return OkStatus();
  }

  // The timed iterations' arrivals (RankResult::entry_ns): steady_clock is CLOCK_MONOTONIC, as start_ns.
  void RecordEntries(Clock::time_point t0, int64_t count, double per_iteration_us) {
    const int64_t t0_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t0.time_since_epoch()).count();
    for (int64_t i = 0; i < count; ++i) {
      result_.entry_ns.push_back(t0_ns - result_.start_ns +
                                 static_cast<int64_t>(static_cast<double>(i) * per_iteration_us * 1000));
    }
  }

  // TEST ONLY (--test-only-uniform-slowdown): waits `extra` past `from`; returns when it ended. Sleeps all but the
  // last 200 us (a spinning rank would take a core its peers need to finish the op) and spins the rest (a sleep
  // overshoots a short op's few microseconds many times over).
  static Clock::time_point SpinFor(Clock::time_point from, std::chrono::duration<double> extra) {
    const auto until = from + std::chrono::duration_cast<Clock::duration>(extra);
    constexpr auto kSpin = std::chrono::microseconds(200);
    if (until - Clock::now() > kSpin) std::this_thread::sleep_until(until - kSpin);
    Clock::time_point now = Clock::now();
    while (now < until) now = Clock::now();
    return now;
  }

  // TEST ONLY (--test-only-hang-rank): the iterations of a unit before the one this rank stops at; at that one it
  // stops for good, outside any collective, as a rank stuck in the application would.
  int64_t StopBeforeHang(int64_t count) {
    if (options_.hang_at_iter <= 0 || phase_ != ProgressPhase::kTimed) return count;
    const int64_t first = done_ + 1;
    if (options_.hang_at_iter > first + count - 1 || options_.hang_at_iter < first) return count;
    if (options_.hang_at_iter > first) return options_.hang_at_iter - first;
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  }

  // The timed steps: the collective, then what the iteration waits for (GPU syncs are the backend's, inside Run).
  using Step = Status (PointRunner::*)();
  Status RunOnly() { return work_->Run(); }
  Status RunThenBarrier() {
    RETURN_IF_ERROR(work_->Run());
    if (timing_.wait_each_run) RETURN_IF_ERROR(work_->Wait());
    return timing_.barrier == BarrierScope::kGroup ? group_->Barrier() : world_->IterationBarrier();
  }
  // Test-only fault injection: this rank is slow every iteration.
  Status DelayedStep() {
    RETURN_IF_ERROR((this->*synced_step_)());
    std::this_thread::sleep_for(injected_delay_);
    return OkStatus();
  }

  // The next sampled iteration's input, made right after a check, outside this rank's clock. Every rank of the
  // group checks the same iterations, so a peer's next op waits only for the difference in their check times.
  void PrepareSampledInput() {
    if (next_check_ == kNever) return;
    const auto t0 = Clock::now();
    FillInput(request_, place_.group_rank, place_.group_size, SampledIter(next_check_), &sampled_input_);
    result_.checks_s += SecondsSince(t0);
  }

  // A timed iteration on its own input, alone in its clocked unit, whose output is compared with the pattern.
  Status CheckedIteration(const std::vector<char>& input, uint64_t iter, const char* which) {
    const int64_t index = done_ + 1;
    StopBeforeHang(1);
    RETURN_IF_ERROR(Unit(input, 1, &result_.samples_us));
    const auto t0 = Clock::now();
    RETURN_IF_ERROR(work_->GetOutput(output_.data(), output_.size()));
    ++result_.checked_iters;
    Status check = CheckOutput(request_, place_.group_rank, place_.group_size, iter, output_);
    result_.checks_s += SecondsSince(t0);
    if (!check.ok() && result_.correct) {
      result_.correct = false;
      result_.error = "timed iteration " + std::to_string(index) + " (" + which + "): " + check.message();
    }
    return OkStatus();
  }

  // TEST ONLY (--test-only-uniform-slowdown): the extra time per op, the same on every rank: the fraction of the
  // median of a few untimed ops (the largest any rank saw). A spin proportional to each op's own measured time
  // would feed back: a rank's op includes waiting for its peers' spins, so the slowdown compounds (a planted 30 %
  // measured 3.6x on 2 cores). A constant spin that all ranks run at once after the same op costs each iteration
  // its length, nothing more.
  Status PlanSlowdown() {
    if (options_.uniform_slowdown <= 0) return OkStatus();
    std::vector<double> probe_us;
    RETURN_IF_ERROR(Repeat(middle_input_, 5, &probe_us));
    std::vector<double> agreed{Summarize(probe_us).p50};
    RETURN_IF_ERROR(world_->MaxAll(&agreed));
    slowdown_per_op_ = std::chrono::duration<double, std::micro>(agreed[0] * options_.uniform_slowdown);
    return OkStatus();
  }

  // Fixed --iters, or as many as the time budget allows at the warm-up's pace (the slowest rank's), agreed by all.
  // One probe first: where a single op already fills the budget's share of the minimum count (a capped link, a
  // large message), the plan is that minimum whatever the other probes say, and they would only repeat the timed
  // loop's work untimed (a 4 MiB ring over a 300 Mbit/s host took 0.87 s an op).
  StatusOr<int64_t> PlanIterations() {
    if (options_.iters > 0) return options_.iters;
    auto t0 = Clock::now();
    RETURN_IF_ERROR(Repeat(middle_input_, 1, nullptr));
    std::vector<double> first_s{SecondsSince(t0)};
    RETURN_IF_ERROR(world_->MaxAll(&first_s));
    if (first_s[0] * static_cast<double>(options_.min_iters) >= options_.time_budget_s) return options_.min_iters;
    t0 = Clock::now();
    const int64_t probes = std::max<int64_t>(options_.warmup, 3) - 1;
    RETURN_IF_ERROR(Repeat(middle_input_, probes, nullptr));
    std::vector<double> per_iter_s{SecondsSince(t0) / static_cast<double>(probes)};
    RETURN_IF_ERROR(world_->MaxAll(&per_iter_s));
    double n = options_.time_budget_s / std::max(per_iter_s[0], 1e-9);
    return std::clamp<int64_t>(static_cast<int64_t>(n), options_.min_iters, options_.max_iters);
  }

  // Adaptive: the next batch's iterations, or 0 when every rank's 95% CI of the median (and of the mean) is within
  // the target or twice the time budget is spent. A batch is the planned count, or more where the slowest rank's
  // pace over the last one says the window would not yet double (at most to the budget, then to twice it): a
  // point needs a few agreements (each a world-wide round trip, a wait for the slowest group), not one per batch
  // of the warm-up's often pessimistic size, and never fewer iterations than the planned batches gave. Every rank
  // computes the same count from the agreed maxima.
  StatusOr<int64_t> NextBatch(double my_pace_s) {
    // The fits and the diagnosis read the mean (the loop's cost per op), whose interval a few stalls widen far
    // more than the median's: iterate until both are within the target (or the budget runs out).
    const auto t0 = Clock::now();
    Summary s = Summarize(result_.samples_us);
    double relative_half_width = s.p50 > 0 ? (s.ci95_hi - s.ci95_lo) / 2 / s.p50 : 0;
    if (s.mean > 0) relative_half_width = std::max(relative_half_width, 1.96 * StandardErrorOfMean(s) / s.mean);
    double elapsed_s = static_cast<double>(MonotonicNs() - result_.start_ns) * 1e-9;
    const auto t1 = Clock::now();
    result_.stats_s += std::chrono::duration<double>(t1 - t0).count();
    std::vector<double> agreed{relative_half_width, elapsed_s, my_pace_s, BindingQuotaPeriodS()};
    RETURN_IF_ERROR(world_->MaxAll(&agreed));
    in_window_barriers_s_ += SecondsSince(t1);
    const double budget_s = options_.time_budget_s, window_s = agreed[1], pace_s = agreed[2];
    // Under a binding quota the ranks run at full speed until the quota runs out, then stall for the rest of the
    // period: a loop shorter than a few periods times the burst, and one over a few periods counts a few stalls.
    const double min_s = loop_defaults::kQuotaMinPeriods * agreed[3];
    const double cap_s = std::max(2 * budget_s, loop_defaults::kQuotaPeriods * agreed[3]);
    const int64_t left = options_.max_iters - done_ - 1;
    if ((agreed[0] <= options_.target_ci && window_s >= min_s) || window_s >= cap_s || left < 1) return 0;
    const double milestone_s = window_s < 0.95 * budget_s ? budget_s : cap_s;
    const double end_s =
        std::max({std::min(2 * window_s, milestone_s), window_s + budget_s / 16, std::min(min_s, cap_s)});
    const auto doubling = static_cast<int64_t>((end_s - window_s) / std::max(pace_s, 1e-9));
    return std::clamp<int64_t>(std::max(doubling, planned_), 1, left);
  }

  // The timed window's phases: its barriers join the others; what neither the clock nor a phase took was spent
  // between the clocked operations. Checks and stats outside the window (none today) would make it smaller.
  void AccountWindow() {
    double clocked_s = 0;
    for (double us : result_.samples_us) clocked_s += us;
    clocked_s *= 1e-6;
    const double window_s = static_cast<double>(result_.end_ns - result_.start_ns) * 1e-9;
    result_.barriers_s += in_window_barriers_s_;
    result_.between_ops_s =
        std::max(window_s - clocked_s - result_.checks_s - result_.stats_s - in_window_barriers_s_, 0.0);
  }

  // Counts restart with each phase (warm-up and probes, then the timed loop).
  void EnterPhase(ProgressPhase phase) {
    phase_ = phase;
    done_ = 0;
    if (options_.progress) options_.progress->EnterPhase(options_.point_index, phase);
  }

  OpRequest request_;
  RankPlace place_;
  Work* work_;
  Communicator* group_;
  Agreement* world_;
  LoopOptions options_;
  const bool sequential_;  // groups take turns
  const TimingPlan timing_;
  const Step synced_step_;
  const Step step_;
  const std::chrono::duration<double, std::micro> injected_delay_;
  const std::chrono::duration<double, std::micro> arrival_delay_;  // TEST ONLY: --test-only-late-rank
  std::chrono::duration<double, std::micro> slowdown_per_op_{0};   // TEST ONLY: PlanSlowdown
  CheckSampler sampler_;
  int64_t next_check_ = kNever;      // timed index of the next sampled check
  const bool keeps_input_;           // Work::KeepsInput, asked once: not per iteration
  bool middle_input_set_ = false;    // the last input set was middle_input_ (Unit)
  int64_t planned_ = 0;              // the iterations the warm-up's pace fits in the budget (PlanIterations)
  double in_window_barriers_s_ = 0;  // barriers inside the timed window (AccountWindow)
  ProgressPhase phase_ = ProgressPhase::kSetup;
  int64_t done_ = 0;  // iterations of the current phase completed
  std::vector<char> first_input_, middle_input_, last_input_, sampled_input_, output_;
  RankResult result_;
};

}  // namespace

StatusOr<RankResult> RunPointLoop(const OpRequest& request, const RankPlace& place, Work* work, Communicator* group,
                                  Agreement* world, const LoopOptions& options) {
  return PointRunner(request, place, work, group, world, options).Run();
}

}  // namespace commbench
