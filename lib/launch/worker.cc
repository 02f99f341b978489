#include "lib/launch/worker.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "lib/backend/world_control.h"
#include "lib/core/affinity.h"
#include "lib/core/ranges.h"
#include "lib/launch/own_address.h"
#include "lib/launch/worker_plan.h"
#include "lib/measure/progress.h"
#include "lib/measure/traffic_record.h"
#include "lib/result/rank_samples.h"

namespace commbench {
namespace {

using nlohmann::json;

// How long a failing rank process waits before it exits (RunWorkerProcess says why).
constexpr auto kLingerAfterFailure = std::chrono::milliseconds(500);

class WorldAgreement : public Agreement {
 public:
  explicit WorldAgreement(WorldControl* world) : world_(world) {}
  Status Barrier() override { return world_->Barrier(); }
  Status IterationBarrier() override { return world_->IterationBarrier(); }
  Status MaxAll(std::vector<double>* values) override { return world_->MaxAll(values); }

 private:
  WorldControl* world_;
};

// One communicator per (backend, group size), made on first use and reused by later points.
struct CachedCommunicator {
  std::unique_ptr<Backend> backend;
  std::unique_ptr<Communicator> comm;
  double setup_s = 0;
  int64_t rss_bytes = -1;  // the process's resident growth while it connected (RankSamples::comm_rss_bytes)
};

// --- communicator memory (issue 52) ---
// This process's resident set (/proc/self/statm, pages in memory); -1 where it cannot be read.
int64_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t size = 0, resident = -1;
  if (!(statm >> size >> resident)) return -1;
  return resident * static_cast<int64_t>(sysconf(_SC_PAGESIZE));
}
// --- end communicator memory ---

// The driver's way: rank-<r>.jsonl in the launch's results directory, one line per finished point.
class FileRankOutput : public RankOutput {
 public:
  FileRankOutput(const std::string& results_dir, int rank) : out_(RankResultsPath(results_dir, rank), std::ios::app) {}
  bool ok() const { return static_cast<bool>(out_); }
  Status Put(const result::RankSamples& samples) override {
    out_ << result::RankSamplesToJsonLine(samples) << "\n";
    out_.flush();
    return out_ ? OkStatus() : Internal("cannot write the results of point " + samples.point_id);
  }

 private:
  std::ofstream out_;
};

class RankRunner {
 public:
  RankRunner(const WorkerPlan& plan, int rank, int local_rank, Store* store, RankOutput* output)
      : plan_(plan), rank_(rank), local_rank_(local_rank), store_(store), output_(output) {}

  Status Run() {
    Status s = RunPoints();
    if (!s.ok()) progress_.Failed();
    return s;
  }

 private:
  Status RunPoints() {
    if (!plan_.progress_dir.empty()) {
      ASSIGN_OR_RETURN(progress_, ProgressPage::Create(ProgressPath(plan_.progress_dir, rank_), rank_));
    }
    PrefixStore world_store("world", store_);
    WorldConnectRequest options;
    options.rank = rank_;
    options.size = plan_.world;
    options.store = &world_store;
    options.host = plan_.host;
    options.iface = plan_.iface;
    options.timeout = Timeout();
    ASSIGN_OR_RETURN(auto plane, ConnectWorldControl(options));
    WorldAgreement world(plane.get());
    // Each point's span starts where the previous one's ended (before its line was written), so that the spans
    // of a launch's points tile the rank's time from its first point on (lib/result/phases.h).
    int64_t begin_ns = MonotonicNowNs();
    double previous_write_s = 0;
    for (size_t i = 0; i < plan_.points.size(); ++i) {
      const Point& point = plan_.points[i];
      progress_.EnterPhase(static_cast<int>(i), ProgressPhase::kSetup);
      auto samples = RunPoint(point, static_cast<int>(i), &world);
      if (!samples.ok()) {
        return Status(samples.status().code(), "rank " + std::to_string(rank_) + " failed in point " + point.Id() +
                                                   ": " + samples.status().message());
      }
      samples->point_index = static_cast<int>(i);
      CloseSpan(begin_ns, previous_write_s, &samples->phases);
      begin_ns = samples->phases.end_ns;
      const auto write_start = std::chrono::steady_clock::now();
      Status put = output_->Put(*samples);
      if (!put.ok()) return Status(put.code(), "rank " + std::to_string(rank_) + ": " + put.message());
      previous_write_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - write_start).count();
    }
    return LeaveTogether();
  }

  // Ends a point's span now: the previous line's writing joins it, and what no phase took is `other`.
  static void CloseSpan(int64_t begin_ns, double previous_write_s, result::RankPhases* phases) {
    using result::Phase;
    phases->begin_ns = begin_ns;
    phases->end_ns = MonotonicNowNs();
    phases->seconds[Phase::kWriting] = previous_write_s;
    const double span_s = static_cast<double>(phases->end_ns - begin_ns) * 1e-9;
    phases->seconds[Phase::kOther] = std::max(span_s - phases->seconds.Sum(), 0.0);
  }

  // Nobody closes its sockets while a peer may still be sending to it: every rank posts "done" in the store
  // and leaves once all have (a TCP barrier here would itself race with the first rank to leave).
  Status LeaveTogether() {
    PrefixStore done("done", store_);
    RETURN_IF_ERROR(done.Set(std::to_string(rank_), {'1'}));
    for (int r = 0; r < plan_.world; ++r) RETURN_IF_ERROR(done.Get(std::to_string(r), Timeout()).status());
    return OkStatus();
  }

  std::chrono::milliseconds Timeout() const {
    return std::chrono::milliseconds(static_cast<int64_t>(plan_.timeout_s * 1000));
  }

  StatusOr<CachedCommunicator*> CommunicatorFor(const Point& point, const RankPlace& place) {
    std::string key = point.backend + "/k" + std::to_string(point.group_size);
    auto& cached = comms_[key];
    if (cached.comm) return &cached;
    auto t0 = std::chrono::steady_clock::now();
    const int64_t rss_before = ResidentBytes();
    ASSIGN_OR_RETURN(cached.backend, CreateBackend(point.backend));
    group_stores_.push_back(std::make_unique<PrefixStore>(key + "/group" + std::to_string(place.group), store_));
    ConnectRequest request;
    request.place = place;
    request.store = group_stores_.back().get();
    request.host = plan_.host;
    request.iface = plan_.iface;
    request.timeout = Timeout();
    ASSIGN_OR_RETURN(cached.comm, cached.backend->Connect(request));
    cached.setup_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const int64_t rss_after = ResidentBytes();
    // Growth only: pages the allocator gave back meanwhile do not make a communicator free.
    if (rss_before >= 0 && rss_after >= 0) cached.rss_bytes = std::max<int64_t>(rss_after - rss_before, 0);
    return &cached;
  }

  StatusOr<result::RankSamples> RunPoint(const Point& point, int point_index, Agreement* world) {
    RankPlace place;
    place.rank = rank_;
    place.world = plan_.world;
    place.group = rank_ / point.group_size;
    place.group_rank = rank_ % point.group_size;
    place.group_size = point.group_size;
    place.local_rank = local_rank_;
    const auto connect_start = std::chrono::steady_clock::now();
    ASSIGN_OR_RETURN(CachedCommunicator * cached, CommunicatorFor(point, place));
    OpRequest request = RequestOf(point);
    ASSIGN_OR_RETURN(auto work, cached->comm->Prepare(request));
    const double connect_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - connect_start).count();
    LoopOptions loop = plan_.loop;
    loop.time_budget_s = TimeBudgetFor(plan_.loop.time_budget_s, plan_.time_budget_above, point.bytes);
    loop.sync = point.sync;
    loop.concurrency = point.concurrency;
    if (rank_ == plan_.slow_rank) loop.injected_delay_us = plan_.slow_rank_delay_us;
    if (rank_ == plan_.late_rank) loop.arrival_delay_us = plan_.late_rank_delay_us;
    if (rank_ == plan_.hang_rank) loop.hang_at_iter = plan_.hang_at_iter;
    loop.device = cached->backend->Capabilities().device;
    loop.check_seed = plan_.check_seed + static_cast<uint64_t>(point_index);  // the same on every rank
    loop.progress = &progress_;
    loop.point_index = point_index;
    ASSIGN_OR_RETURN(RankResult r, RunPointLoop(request, place, work.get(), cached->comm.get(), world, loop));
    // Process counters cover all rank threads of this process, which run the same loop at the same time.
    const double share = 1.0 / plan_.ranks_per_process;
    result::RankSamples out;
    out.point_id = point.Id();
    out.rank = rank_;
    out.process_rank = ProcessRank();
    out.group = place.group;
    out.group_rank = place.group_rank;
    out.pid = static_cast<int>(getpid());
    out.correct = r.correct;
    out.error = std::move(r.error);
    out.checked_iters = r.checked_iters;
    out.algo = std::move(r.algo);
    out.warmup = r.warmup;
    out.samples_us = std::move(r.samples_us);
    out.device_samples_us = std::move(r.device_samples_us);
    out.start_ns = r.start_ns;
    out.end_ns = r.end_ns;
    out.entry_ns = std::move(r.entry_ns);  // arrivals (issue 52)
    out.cpu_user_s = r.cpu_user_s * share;
    out.cpu_sys_s = r.cpu_sys_s * share;
    out.vol_ctx = static_cast<double>(r.vol_ctx) * share;
    out.invol_ctx = static_cast<double>(r.invol_ctx) * share;
    out.runqueue_wait_s = r.runqueue_wait_s;  // the rank's own thread: no share to take
    out.migrations = r.migrations;            // likewise
    out.cpu_quota = r.cpu_quota;              // the process's cgroup: every rank of it alike
    out.throttled_share = r.throttled_share;
    out.affinity = FormatCpuList(AllowedCpus());
    out.host = plan_.host_name;
    out.address = plan_.host;
    out.transport = cached->comm->transport();  // kUnknown (written as nothing): the declared one
    out.setup_s = cached->setup_s;
    out.comm_rss_bytes = cached->rss_bytes;
    out.comm_device_bytes = cached->comm->device_memory_bytes();
    out.traffic = MeasuredTraffic(r, static_cast<int64_t>(out.samples_us.size()), cached->backend->Capabilities(),
                                  out.transport != Transport::kUnknown ? out.transport : point.transport,
                                  plan_.ranks_per_process);
    using result::Phase;
    result::PhaseSeconds& phases = out.phases.seconds;
    phases[Phase::kConnect] = connect_s;
    phases[Phase::kWarmup] = r.warmup_s;
    for (double us : out.samples_us) phases[Phase::kTimed] += us * 1e-6;
    phases[Phase::kBetweenOps] = r.between_ops_s;
    phases[Phase::kChecks] = r.checks_s;
    phases[Phase::kBarriers] = r.barriers_s;
    phases[Phase::kStats] = r.stats_s;
    return out;
  }

  const WorkerPlan& plan_;
  // This process's rank as its launcher numbered it: the launch's order maps launch ranks to it (SPMD).
  int ProcessRank() const {
    return static_cast<size_t>(rank_) < plan_.order.size() ? plan_.order[static_cast<size_t>(rank_)] : rank_;
  }

  int rank_;
  int local_rank_;  // among the ranks on this host
  Store* store_;
  RankOutput* output_;
  std::map<std::string, CachedCommunicator> comms_;
  std::vector<std::unique_ptr<PrefixStore>> group_stores_;
  ProgressPage progress_;  // none (writes nothing) when the plan names no progress directory
};

}  // namespace

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "";
  return name;
}

Status RunRank(const WorkerPlan& plan, int rank, int local_rank, Store* store, RankOutput* output) {
  return RankRunner(plan, rank, local_rank, store, output).Run();
}

Status RunWorkerProcess(const std::string& plan_path, int process_index, int local_process_index) {
  std::ifstream in(plan_path);
  if (!in) return InvalidArgument("worker: cannot read plan " + plan_path);
  json j;
  try {
    in >> j;
  } catch (const json::exception& e) {
    return InvalidArgument("worker: malformed plan " + plan_path + ": " + e.what());
  }
  ASSIGN_OR_RETURN(WorkerPlan plan, WorkerPlanFromJson(j));
  plan.host_name = HostName();
  if (plan.host.empty()) {  // ranks on other hosts (srun): the address of --iface, else of the first interface up
    if (!plan.iface.empty()) {
      ASSIGN_OR_RETURN(plan.host, InterfaceAddress(plan.iface));
    } else {
      plan.host = FirstNonLoopbackAddress();
    }
  }
  auto store = NewFileStore(plan.store_dir);
  const int first = process_index * plan.ranks_per_process;
  const int last = std::min(first + plan.ranks_per_process, plan.world);
  if (first >= plan.world)
    return InvalidArgument("worker: process index " + std::to_string(process_index) + " out of range");
  if (local_process_index < 0) local_process_index = process_index;
  std::vector<std::thread> threads;
  for (int rank = first; rank < last; ++rank) {
    const int local_rank = local_process_index * plan.ranks_per_process + (rank - first);
    threads.emplace_back([&, rank, local_rank] {
      FileRankOutput output(plan.results_dir, rank);
      Status s = output.ok() ? RunRank(plan, rank, local_rank, store.get(), &output)
                             : Internal("rank " + std::to_string(rank) + ": cannot write " + plan.results_dir);
      if (!s.ok()) {
        // The other rank threads of this process may be blocked on the failed one: the driver needs an exit
        // now, with the reason, rather than a hang.
        std::fprintf(stderr, "commbench worker: %s\n", s.message().c_str());
        std::fflush(stderr);
        // Often this rank failed because a peer was killed: a launcher names the first rank it sees exit, so the
        // peer's death should reach it first.
        std::this_thread::sleep_for(kLingerAfterFailure);
        std::_Exit(1);
      }
    });
  }
  for (auto& t : threads) t.join();
  return OkStatus();
}

}  // namespace commbench
