#include "lib/launch/spmd.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "lib/core/affinity.h"
#include "lib/core/ranges.h"
#include "lib/launch/interrupt.h"
#include "lib/launch/progress_beacon.h"
#include "lib/launch/rank_watch.h"
#include "lib/launch/worker.h"
#include "lib/launch/worker_plan.h"
#include "lib/result/rank_samples.h"

namespace commbench {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

std::vector<char> Bytes(const std::string& s) { return {s.begin(), s.end()}; }
std::string Text(const std::vector<char>& v) { return {v.begin(), v.end()}; }

// The value if the key is there now.
std::optional<std::string> Peek(Store* store, const std::string& key) {
  auto v = store->Get(key, milliseconds(1));
  if (!v.ok()) return std::nullopt;
  return Text(*v);
}

milliseconds Left(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
  return std::max(left, milliseconds(1));
}

std::string RankList(const std::vector<int>& ranks) {
  return (ranks.size() == 1 ? "rank " : "ranks ") + FormatCpuList(ranks);
}

// A rank's samples go to the store, one key per point, for rank 0 to collect.
class StoreRankOutput : public RankOutput {
 public:
  StoreRankOutput(Store* launch_store, int rank, std::atomic<int64_t>* last_put)
      : store_(launch_store), prefix_("result/" + std::to_string(rank) + "/"), last_put_(last_put) {}
  Status Put(const result::RankSamples& samples) override {
    if (last_put_) *last_put_ = Clock::now().time_since_epoch().count();
    return store_->Set(prefix_ + std::to_string(samples.point_index), Bytes(result::RankSamplesToJsonLine(samples)));
  }

 private:
  Store* store_;
  std::string prefix_;
  std::atomic<int64_t>* last_put_;
};

// The rank thread of rank 0: its outcome, read by the collector while it runs.
struct OwnRankState {
  std::mutex mu;
  bool done = false;
  Status status;
};

}  // namespace

SpmdSession::SpmdSession(SpmdOptions options, RunStore* control, RunStore* rank_store)
    : options_(std::move(options)), control_(control), rank_store_(rank_store) {}

SpmdSession::~SpmdSession() {
  // A rank thread still blocked in a collective (a peer died) cannot be joined: the process _Exits (Finish).
  if (own_rank_.joinable()) own_rank_.detach();
}

std::string SpmdSession::Key(int launch, const std::string& rest) const {
  return "launch/" + std::to_string(launch) + (rest.empty() ? "" : "/" + rest);
}

Clock::duration SpmdSession::BeatPeriod() const {
  // Well inside --timeout, so that a rank that keeps iterating is always seen to move in time; at most 1 s.
  const auto quarter = std::chrono::duration<double>(options_.timeout_s / 4);
  return std::clamp(std::chrono::duration_cast<Clock::duration>(quarter), Clock::duration(milliseconds(50)),
                    Clock::duration(milliseconds(1000)));
}

std::string SpmdSession::ProgressDir() {
  if (!progress_dir_) progress_dir_ = std::make_unique<TempDir>("commbench-spmd-");
  return progress_dir_->path();  // "" when it cannot be made: the rank then publishes no progress
}

std::string SpmdSession::Where(int rank) const {
  std::string out = "rank " + std::to_string(rank);
  if (rank < 0 || static_cast<size_t>(rank) >= members_.size() || members_[static_cast<size_t>(rank)].pid == 0) {
    return out;
  }
  const SpmdMember& m = members_[static_cast<size_t>(rank)];
  return out + " (" + m.host + " " + m.address + ", pid " + std::to_string(m.pid) + ")";
}

Status SpmdSession::Claim(Clock::time_point deadline) {
  if (rank() == 0) {
    RETURN_IF_ERROR(control_->Claim(world()));
    if (rank_store_ != control_) RETURN_IF_ERROR(rank_store_->Join(world(), Left(deadline)));
    return OkStatus();
  }
  Status joined = control_->Join(world(), Left(deadline));
  if (joined.code() != StatusCode::kDeadlineExceeded) return joined;
  return DeadlineExceeded("rank 0 of " + std::to_string(world()) + " (" + options_.place.source +
                          ") never arrived at the rendezvous " + control_->Describe() + " within --timeout " +
                          std::to_string(static_cast<int>(options_.timeout_s)) + " s: " + joined.message());
}

Status SpmdSession::PostArrival() {
  Store* store = control_->store();
  const json me = {{"host", options_.host_name},
                   {"address", options_.address},
                   {"pid", static_cast<int>(getpid())},
                   {"problem", options_.problem}};
  const std::string key = "arrive/" + std::to_string(rank());
  Status posted = store->Set(key, Bytes(me.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
  if (posted.ok()) return posted;
  auto there = Peek(store, key);
  if (!there) return posted;
  // Another process posted this rank's arrival in the run we joined: a second run with the same id.
  std::string who = *there;
  try {
    const json j = json::parse(*there);
    who = j.at("host").get<std::string>() + ", pid " + std::to_string(j.at("pid").get<int>());
  } catch (const json::exception&) {
  }
  return Unavailable("run id in use at " + control_->Describe() + ": rank " + std::to_string(rank()) +
                     " of that run already arrived (" + who + "): give this run another --run-id");
}

Status SpmdSession::Arrive() {
  const auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options_.timeout_s));
  RETURN_IF_ERROR(Claim(deadline));
  RETURN_IF_ERROR(PostArrival());
  Store* store = control_->store();
  members_.assign(static_cast<size_t>(world()), SpmdMember{});
  // Ranks in order, each waited for in slices: between them a rank that joined a stale owner moves to the new
  // one (its rank 0 took the run id over) and posts its arrival again.
  int q = 0;
  while (q < world()) {
    auto v = store->Get("arrive/" + std::to_string(q), std::min(Left(deadline), milliseconds(250)));
    if (v.ok()) {
      try {
        const json j = json::parse(Text(*v));
        members_[static_cast<size_t>(q)] = {q, j.at("host").get<std::string>(), j.at("address").get<std::string>(),
                                            j.at("pid").get<int>(), j.value("problem", "")};
      } catch (const json::exception& e) {
        return Internal("rank " + std::to_string(q) + "'s arrival in " + control_->Describe() +
                        " is unreadable: " + e.what());
      }
      ++q;
      continue;
    }
    if (Clock::now() >= deadline) break;
    if (control_->FollowNewOwner()) {
      RETURN_IF_ERROR(PostArrival());
      members_.assign(static_cast<size_t>(world()), SpmdMember{});
      q = 0;
    }
  }
  std::vector<int> missing;
  for (int r = q; r < world(); ++r) {
    auto v = r == q ? std::optional<std::string>() : Peek(store, "arrive/" + std::to_string(r));
    if (!v) {
      missing.push_back(r);
      continue;
    }
    try {
      const json j = json::parse(*v);
      members_[static_cast<size_t>(r)] = {r, j.at("host").get<std::string>(), j.at("address").get<std::string>(),
                                          j.at("pid").get<int>(), j.value("problem", "")};
    } catch (const json::exception&) {
    }
  }
  if (missing.empty()) return OkStatus();
  std::set<std::string> hosts;
  for (const SpmdMember& m : members_) {
    if (m.pid != 0) hosts.insert(m.host + " " + m.address);
  }
  std::string arrived_on;
  for (const std::string& h : hosts) arrived_on += (arrived_on.empty() ? "" : ", ") + h;
  return DeadlineExceeded(RankList(missing) + " of " + std::to_string(world()) + " (" + options_.place.source +
                          ") never arrived at the rendezvous " + control_->Describe() + " within --timeout " +
                          std::to_string(static_cast<int>(options_.timeout_s)) + " s; the others are on " +
                          (arrived_on.empty() ? "(none)" : arrived_on));
}

namespace {

// The launch rank process `rank` runs in `plan` (WorkerPlan::order), or -1 when it sits the launch out.
int LaunchRankOf(const WorkerPlan& plan, int rank) {
  if (plan.order.empty()) return rank < plan.world ? rank : -1;
  for (size_t p = 0; p < plan.order.size(); ++p) {
    if (plan.order[p] == rank) return static_cast<int>(p);
  }
  return -1;
}

// Runs this process through one launch as its rank `launch_rank`, meeting the launch's ranks under "launch/<n>".
Status RunMyRank(WorkerPlan plan, const SpmdOptions& options, int launch, int launch_rank, Store* run_store,
                 std::atomic<int64_t>* last_put = nullptr) {
  plan.host = options.address;
  plan.host_name = options.host_name;
  plan.ranks_per_process = 1;
  // Fault injection names the process (its launcher rank), whatever launch rank the group formation gives it.
  if (plan.slow_rank >= 0) plan.slow_rank = plan.slow_rank == options.place.rank ? launch_rank : -1;
  if (plan.late_rank >= 0) plan.late_rank = plan.late_rank == options.place.rank ? launch_rank : -1;
  if (plan.hang_rank >= 0) plan.hang_rank = plan.hang_rank == options.place.rank ? launch_rank : -1;
  PrefixStore launch_store("launch/" + std::to_string(launch), run_store);
  StoreRankOutput output(&launch_store, launch_rank, last_put);
  const int local_rank = options.place.local_rank >= 0 ? options.place.local_rank : options.place.rank;
  return RunRank(plan, launch_rank, local_rank, &launch_store, &output);
}

// ": R (host H, last completed timed iteration N (...), no progress for X s) stopped without a word (killed, or
// hung); ranks ... waited": of the ranks that delivered nothing, those whose progress stopped first by their last
// beats, with how far they got, then the others.
std::string NameSilent(const std::vector<int>& silent, BeatWatch* beats, const std::function<std::string(int)>& where) {
  const auto now = Clock::now();
  beats->Poll(now);
  std::vector<RankView> views;
  for (int r : silent) {
    RankView v;
    v.progress = beats->Last(r);
    v.progress.rank = r;
    v.idle_s = beats->IdleSeconds(r, now);
    // A rank whose process is gone (on this host) is named before the ranks that merely wait, whatever the beats'
    // timing says: under load a waiting rank's beat can be older than a killed rank's last one.
    v.state = ProcessStateOf(v.progress.pid, v.progress.host);
    views.push_back(v);
  }
  const std::vector<RankView> first = StoppedFirstViews(views);
  std::string out;
  for (size_t i = 0; i < first.size(); ++i) {
    out += (i ? ", " : ": ") + where(first[i].progress.rank);
    if (first[i].progress.pid != 0) {
      char idle[32];
      std::snprintf(idle, sizeof(idle), "%.1f", first[i].idle_s);
      out += " (" + DescribeWhere(first[i]).substr(2) + ", no progress for " + idle + " s)";
    }
  }
  if (!first.empty())
    out += first.size() == 1 ? " stopped without a word (killed, or hung)" : " stopped without a word";
  std::vector<int> waited;
  for (int r : silent) {
    auto named = [r](const RankView& v) { return v.progress.rank == r; };
    if (std::none_of(first.begin(), first.end(), named)) waited.push_back(r);
  }
  if (!waited.empty()) out += "; " + RankList(waited) + " waited";
  return out;
}

}  // namespace

// Over 80 lines: one launch's steps (publish, own rank, collect, judge progress) share its beacon, watch and state.
std::string SpmdSession::RunLaunch(const Launch& launch, const DriverOptions& options, size_t* finished,
                                   bool* interrupted) {
  const int n = next_launch_++;
  Store* store = control_->store();
  WorkerPlan plan = WorkerPlanFor(launch, n, options.spec);
  std::vector<std::string> hosts;
  for (const SpmdMember& m : members_) hosts.push_back(m.address);
  plan.order = launch.order.empty() ? GroupOrder(options.spec.group_by, hosts) : launch.order;
  plan.order.resize(static_cast<size_t>(launch.world));
  auto where = [this, &plan](int launch_rank) { return Where(plan.order[static_cast<size_t>(launch_rank)]); };
  Status published = store->Set(Key(n, ""), Bytes(json{{"plan", WorkerPlanToJson(plan)}}.dump(
                                                -1, ' ', false, nlohmann::json::error_handler_t::replace)));
  if (!published.ok()) return "cannot publish launch " + std::to_string(n) + ": " + published.message();

  // This process runs whichever launch rank the order gives it (acceptance's host pairs may not start with it),
  // or none.
  const int mine = LaunchRankOf(plan, rank());
  auto state = std::make_shared<OwnRankState>();
  WorkerPlan own_plan = plan;
  own_plan.progress_dir = ProgressDir();
  ProgressBeacon beacon(store, Key(n, "beat/"), mine, ProgressPath(own_plan.progress_dir, mine), BeatPeriod());
  BeatWatch beats(store, Key(n, "beat/"), launch.world, Clock::now());
  if (mine < 0) {
    state->done = true;
  } else {
    own_rank_done_ = false;
    own_rank_ = std::thread([this, own_plan, n, mine, state] {
      Status s = RunMyRank(own_plan, options_, n, mine, rank_store_->store());
      if (!s.ok()) (void)rank_store_->store()->Set(Key(n, "failed/" + std::to_string(mine)), Bytes(s.message()));
      std::lock_guard<std::mutex> lock(state->mu);
      state->done = true;
      state->status = s;
      own_rank_done_ = true;
    });
  }
  auto own_failed = [&state] {
    std::lock_guard<std::mutex> lock(state->mu);
    return state->done && !state->status.ok();
  };

  const auto timeout = std::chrono::duration<double>(options.spec.timeout_s);
  // Names every rank of the launch that did not deliver point j: what it reported, or that it said nothing.
  auto stopped = [&](size_t j, const std::string& why) {
    std::this_thread::sleep_for(milliseconds(500));  // the peers of a dead rank report within a moment
    std::vector<int> silent;
    std::string failed;
    for (int r = 0; r < launch.world; ++r) {
      if (Peek(store, Key(n, "result/" + std::to_string(r) + "/" + std::to_string(j)))) continue;
      if (auto report = Peek(store, Key(n, "failed/" + std::to_string(r)))) {
        failed += "; " + where(r) + " failed: " + *report;
      } else {
        silent.push_back(r);
      }
    }
    return "point " + launch.points[j].Id() + " " + why + NameSilent(silent, &beats, where) + failed;
  };

  auto last_progress = Clock::now();
  auto next_look = last_progress;
  for (size_t j = 0; j < launch.points.size(); ++j) {
    FinishedPoint point;
    point.point = launch.points[j];
    point.cores_available = static_cast<int>(AllowedCpus().size());
    for (int r = 0; r < launch.world; ++r) {
      const std::string key = Key(n, "result/" + std::to_string(r) + "/" + std::to_string(j));
      int polls = 0;
      while (true) {
        auto v = store->Get(key, milliseconds(50));
        if (v.ok()) {
          auto samples = result::ParseRankSamplesLine(Text(*v));
          if (!samples.ok())
            return where(r) + " sent a bad result in point " + point.point.Id() + ": " + samples.status().message();
          point.ranks.push_back(std::move(*samples));
          last_progress = Clock::now();
          break;
        }
        if (Interrupted()) {
          *interrupted = true;
          return "interrupted by signal " + std::to_string(InterruptSignal()) + " during point " + point.point.Id();
        }
        const bool someone_failed =
            own_failed() || (++polls % 10 == 0 && Peek(store, Key(n, "failed/" + std::to_string(r))));
        if (someone_failed) return stopped(j, "did not finish");
        // Every rank's beats are progress: a point that keeps iterating is never cut short, and a rank stuck
        // inside one operation stops the launch whatever the other groups still do.
        const auto now = Clock::now();
        if (mine >= 0) beacon.Tick(now);
        if (now >= next_look) {
          if (beats.Poll(now)) last_progress = now;
          next_look = now + BeatPeriod();
        }
        if (now - last_progress > timeout || beats.AnyStuckInsideAnOp(now, timeout)) {
          return stopped(j, "made no progress within --timeout " +
                                std::to_string(static_cast<int>(options.spec.timeout_s)) + " s");
        }
      }
    }
    (void)store->Set(Key(n, "collected/" + std::to_string(j)), Bytes("1"));
    ++*finished;
    if (options.progress) {
      options.progress("  " + std::to_string(j + 1) + "/" + std::to_string(launch.points.size()) + " " +
                       point.point.Id());
    }
    if (options.on_point) {
      Status s = options.on_point(std::move(point));
      if (!s.ok()) return s.message();
    }
  }
  if (own_rank_.joinable()) own_rank_.join();  // it is leaving the launch with the others (bounded by the timeout)
  return state->status.ok() ? "" : where(mine) + ": " + state->status.message();
}

DriverOutcome SpmdSession::RunPlan(const Plan& plan, const DriverOptions& options) {
  DriverOutcome outcome;
  for (size_t i = 0; i < plan.launches.size(); ++i) {
    const Launch& launch = plan.launches[i];
    if (options.progress) {
      options.progress("[" + std::to_string(i + 1) + "/" + std::to_string(plan.launches.size()) + "] world of " +
                       std::to_string(launch.world) + " ranks, " + std::to_string(launch.points.size()) +
                       " points (SPMD, " + std::to_string(world()) + " processes)");
    }
    outcome.failure = RunLaunch(launch, options, &outcome.points_finished, &outcome.interrupted);
    if (!outcome.failure.empty()) break;
  }
  return outcome;
}

bool SpmdSession::Finish(const std::string& failure) {
  Store* store = control_->store();
  (void)store->Set(Key(next_launch_, ""), Bytes(json{{"end", true}, {"failure", failure}}.dump(
                                              -1, ' ', false, nlohmann::json::error_handler_t::replace)));
  // After a failure the ranks blocked in a collective leave only when their own timeout fires: do not wait.
  const auto deadline =
      Clock::now() +
      (failure.empty() ? std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options_.timeout_s))
                       : std::chrono::duration_cast<Clock::duration>(milliseconds(2000)));
  for (int r = 1; r < world(); ++r) (void)store->Get("bye/" + std::to_string(r), Left(deadline));
  (void)control_->Remove();
  if (rank_store_ != control_) (void)rank_store_->Remove();  // and from here its own rank writes nothing
  if (own_rank_.joinable() && own_rank_done_) own_rank_.join();
  return !own_rank_.joinable();
}

Status SpmdSession::RunFollowed(const WorkerPlan& plan, int n, int launch_rank) {
  Store* store = control_->store();
  auto state = std::make_shared<OwnRankState>();
  auto last_put = std::make_shared<std::atomic<int64_t>>(Clock::now().time_since_epoch().count());
  WorkerPlan own_plan = plan;
  own_plan.progress_dir = ProgressDir();
  ProgressBeacon beacon(store, Key(n, "beat/"), launch_rank, ProgressPath(own_plan.progress_dir, launch_rank),
                        BeatPeriod());
  own_rank_done_ = false;
  own_rank_ = std::thread([this, own_plan, n, launch_rank, state, last_put, store] {
    Status s = RunMyRank(own_plan, options_, n, launch_rank, store, last_put.get());
    if (!s.ok()) (void)store->Set(Key(n, "failed/" + std::to_string(launch_rank)), Bytes(s.message()));
    std::lock_guard<std::mutex> lock(state->mu);
    state->done = true;
    state->status = s;
    own_rank_done_ = true;
  });
  // The rank may be blocked in a collective whose peer is gone, for up to --timeout from whenever it entered
  // it: this thread leaves as soon as rank 0 ends the run, or when nothing moved for --timeout plus the grace
  // (rank 0 gone too). The process then exits without waiting for the rank thread.
  const auto limit =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options_.timeout_s)) + kSpmdGrace;
  auto last = Clock::now();
  size_t collected = 0;
  for (int tick = 0;; ++tick) {
    {
      std::lock_guard<std::mutex> lock(state->mu);
      if (state->done) break;
    }
    std::this_thread::sleep_for(milliseconds(20));
    if (tick % 5 != 0) continue;
    if (beacon.Tick(Clock::now())) last = Clock::now();  // this rank's own progress, published for rank 0
    if (auto next = Peek(store, Key(n + 1, ""))) {
      json j = json::parse(*next, nullptr, false);
      const std::string failure = j.is_object() ? j.value("failure", "") : "";
      if (!failure.empty()) {
        own_rank_.detach();
        return Unavailable("the run stopped: " + failure);
      }
    }
    while (collected < plan.points.size() && Peek(store, Key(n, "collected/" + std::to_string(collected)))) {
      ++collected;
      last = Clock::now();
    }
    last = std::max(last, Clock::time_point(Clock::duration(last_put->load())));
    if (Clock::now() - last > limit) {
      own_rank_.detach();
      return DeadlineExceeded("launch " + std::to_string(n) + " made no progress within --timeout " +
                              std::to_string(static_cast<int>(options_.timeout_s)) + " s and " +
                              std::to_string(kSpmdGrace.count()) + " s of grace, and " + Where(0) +
                              " ended nothing (gone?)");
    }
  }
  own_rank_.join();
  return state->status;
}

Status SpmdSession::Follow() {
  const Status followed = FollowLaunches();
  (void)control_->Remove();
  return followed;
}

Status SpmdSession::FollowLaunches() {
  Store* store = control_->store();
  const milliseconds timeout(static_cast<int64_t>(options_.timeout_s * 1000));
  Status outcome;
  for (int n = 0;; ++n) {
    auto v = store->Get(Key(n, ""), timeout);
    if (!v.ok()) {
      outcome = DeadlineExceeded(Where(0) + " published no launch " + std::to_string(n) + " within --timeout " +
                                 std::to_string(static_cast<int>(options_.timeout_s)) + " s");
      break;
    }
    json j;
    try {
      j = json::parse(Text(*v));
    } catch (const json::exception& e) {
      outcome = Internal("launch " + std::to_string(n) + " is unreadable: " + e.what());
      break;
    }
    if (j.value("end", false)) {
      const std::string failure = j.value("failure", "");
      if (!failure.empty()) outcome = Unavailable("the run stopped: " + failure);
      break;
    }
    auto plan = WorkerPlanFromJson(j.at("plan"));
    if (!plan.ok()) {
      outcome = plan.status();
      break;
    }
    const int launch_rank = LaunchRankOf(*plan, rank());
    if (launch_rank >= 0) {
      outcome = RunFollowed(*plan, n, launch_rank);
      if (!outcome.ok()) break;
      continue;
    }
    // Not in this launch: follow rank 0's collection, so that a stalled launch is noticed here too.
    for (size_t p = 0; p < plan->points.size(); ++p) {
      auto last = Clock::now();
      bool next_published = false;
      while (!Peek(store, Key(n, "collected/" + std::to_string(p)))) {
        if (Peek(store, Key(n + 1, ""))) {
          next_published = true;
          break;
        }
        if (Clock::now() - last > timeout) {
          (void)store->Set("bye/" + std::to_string(rank()), Bytes("1"));
          return DeadlineExceeded("point " + plan->points[p].Id() + " made no progress within --timeout " +
                                  std::to_string(static_cast<int>(options_.timeout_s)) +
                                  " s (this rank is idle in it)");
        }
        std::this_thread::sleep_for(milliseconds(50));
      }
      if (next_published) break;
    }
  }
  (void)store->Set("bye/" + std::to_string(rank()), Bytes("1"));
  return outcome;
}

std::vector<int> GroupOrder(GroupBy by, const std::vector<std::string>& hosts) {
  std::vector<int> order(hosts.size());
  for (size_t r = 0; r < order.size(); ++r) order[r] = static_cast<int>(r);
  if (by == GroupBy::kConsecutive) return order;
  // Hosts in order of their first rank; each rank's index among its host's ranks.
  std::map<std::string, int> host_index;
  std::map<std::string, int> seen;
  std::vector<int> nth(hosts.size());
  for (size_t r = 0; r < hosts.size(); ++r) {
    host_index.emplace(hosts[r], static_cast<int>(host_index.size()));
    nth[r] = seen[hosts[r]]++;
  }
  auto key = [&](int r) {
    const int h = host_index.at(hosts[static_cast<size_t>(r)]);
    const int i = nth[static_cast<size_t>(r)];
    return by == GroupBy::kHost ? std::make_pair(h, i) : std::make_pair(i, h);
  };
  std::stable_sort(order.begin(), order.end(), [&key](int a, int b) { return key(a) < key(b); });
  return order;
}

Status FitPlanToWorld(int world, Plan* plan, std::vector<std::string>* notes) {
  std::vector<Launch> kept;
  std::set<int> dropped_groups;
  int needed_min = 0, largest = 0;
  for (const Launch& launch : plan->launches) {
    if (launch.ranks_per_process != 1) {
      return InvalidArgument("--ranks-per-process " + std::to_string(launch.ranks_per_process) +
                             ": under a launcher every rank is its own process (accepted: 1)");
    }
    if (!launch.cpus.empty() || launch.pin != Pin::kNone) {
      return InvalidArgument(
          "--cpus/--pin: under a launcher the launcher places ranks on CPUs (srun --cpu-bind, "
          "mpirun --bind-to) (accepted: the defaults)");
    }
    needed_min = needed_min == 0 ? launch.world : std::min(needed_min, launch.world);
    if (launch.world > world) {
      for (const Point& p : launch.points) dropped_groups.insert(p.groups);
      continue;
    }
    largest = std::max(largest, launch.world);
    kept.push_back(launch);
  }
  if (kept.empty()) {
    return InvalidArgument("a world of " + std::to_string(world) + " ranks is too small for every point: the " +
                           "smallest needs " + std::to_string(needed_min) + " (--groups x --group-size)");
  }
  plan->launches = std::move(kept);
  if (!dropped_groups.empty()) {  // one line for all of them, in the result's skipped list and on the console
    std::vector<int> g(dropped_groups.begin(), dropped_groups.end());
    plan->skipped.push_back({"--groups " + FormatCpuList(g),
                             "need more ranks than the " + std::to_string(world) + " the launcher started"});
  }
  if (largest < world) {
    notes->push_back("ranks " + std::to_string(largest) + "-" + std::to_string(world - 1) +
                     " stay idle: the largest point needs " + std::to_string(largest) + " ranks");
  }
  return OkStatus();
}

}  // namespace commbench
