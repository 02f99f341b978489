// SPMD mode: N `commbench sweep` processes that someone else's launcher started (srun, mpirun, torchrun, a
// Kubernetes PyTorchJob) run one sweep together. They meet in a rendezvous store (lib/rendezvous/run_store.h);
// rank 0 plans and publishes each launch there, every rank runs its part, the samples come back to rank 0
// through the store, and rank 0 aggregates and writes the result as the driver would. Keys, under the run's
// namespace:
//   arrive/<r>                       {host, address, pid} of rank r
//   launch/<n>                       the n-th launch's WorkerPlan, or {"end": true, "failure": "..."}; its
//                                    `order` says which process runs each of its ranks (GroupOrder)
//   launch/<n>/...                   that launch's rendezvous (Gloo's keys, "done/<r>")
//   launch/<n>/result/<r>/<j>        launch rank r's samples of point j (result::RankSamples, one JSON line)
//   launch/<n>/failed/<r>            why launch rank r stopped (a rank that is killed leaves none)
//   launch/<n>/collected/<j>         rank 0 has point j: ranks outside the launch follow its progress
//   bye/<r>                          rank r is leaving; then rank 0 removes the namespace
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "lib/core/temp_dir.h"
#include "lib/launch/driver.h"
#include "lib/launch/launcher_env.h"
#include "lib/launch/worker_plan.h"
#include "lib/rendezvous/run_store.h"
#include "lib/sweep/planner.h"

namespace commbench {

// How long past --timeout a rank of a stopped SPMD run may take to leave: rank 0 names the stopped ranks (about
// 0.5 s), writes its partial result and waits up to 2 s for the others' goodbyes; the others leave within 0.1 s
// of rank 0's end, or on their own this long after --timeout when rank 0 is gone too.
inline constexpr std::chrono::seconds kSpmdGrace{5};

struct SpmdMember {
  int rank = 0;
  std::string host;     // machine name
  std::string address;  // transport address
  int pid = 0;
  std::string problem;  // "" when its host is as expected (SpmdOptions::problem)
};

struct SpmdOptions {
  LaunchPlace place;
  std::string address;  // this rank's transport address (own_address.h)
  std::string host_name;
  double timeout_s = 60;
  std::string problem;  // what this rank found wrong with its host (pre-flight), published with its arrival
};

// Ranks that did not arrive, or a launch that stopped: Unavailable; the message names the ranks.
class SpmdSession {
 public:
  // `control` carries rank 0's coordination (and everything on the other ranks); `rank_store` is a second
  // connection for rank 0's own rank thread. Both point at the same run namespace.
  SpmdSession(SpmdOptions options, RunStore* control, RunStore* rank_store);
  ~SpmdSession();

  // Claims (rank 0) or joins the run id (run_store.h), posts this rank's arrival and waits up to the timeout
  // for every other rank's. DeadlineExceeded names the ranks that never arrived and where the others are;
  // Unavailable "run id ... in use" when another live run holds the id.
  Status Arrive();
  const std::vector<SpmdMember>& members() const { return members_; }
  int rank() const { return options_.place.rank; }
  int world() const { return options_.place.world; }

  // Rank 0: runs `plan`'s launches with the others (the driver's contract: DriverOptions.on_point per finished
  // point, a failure naming the ranks). Its own rank runs on a thread.
  DriverOutcome RunPlan(const Plan& plan, const DriverOptions& options);
  // Rank 0: tells the others the run is over, waits (up to the timeout) for their goodbyes and removes the
  // run's keys. True when its own rank thread has ended (otherwise the process must _Exit, not return).
  bool Finish(const std::string& failure);

  // The other ranks: run rank 0's launches until it says the run is over, then leave the store (what this rank
  // wrote after rank 0 removed the run, its goodbye late, goes with it). The error is this rank's failure or
  // rank 0's ("the run stopped: ...").
  Status Follow();

  // Removes this process's scratch files (its progress pages) before it _Exits, which runs no destructor.
  void RemoveScratch() { progress_dir_.reset(); }

 private:
  std::string Key(int launch, const std::string& rest) const;
  std::string Where(int rank) const;  // "rank 3 (node2 10.0.0.3, pid 77)"
  std::string RunLaunch(const Launch& launch, const DriverOptions& options, size_t* finished, bool* interrupted);
  Status Claim(std::chrono::steady_clock::time_point deadline);
  Status PostArrival();
  // A follower's launch: its rank on a thread, watched (see kSpmdGrace).
  Status FollowLaunches();
  Status RunFollowed(const WorkerPlan& plan, int n, int launch_rank);

  SpmdOptions options_;
  RunStore* control_;
  RunStore* rank_store_;
  std::vector<SpmdMember> members_;
  int next_launch_ = 0;
  std::thread own_rank_;
  std::atomic<bool> own_rank_done_{true};
  // Where this process's rank keeps its progress page, published into the store as beats (progress_beacon.h).
  std::string ProgressDir();
  std::chrono::steady_clock::duration BeatPeriod() const;  // how often beats are published and read
  std::unique_ptr<TempDir> progress_dir_;
};

// The processes in the order launches take them (WorkerPlan::order: a launch of W ranks runs in the first W),
// for processes where rank r runs on host `hosts[r]`: consecutive ranks; by host (each host's ranks in a row, so
// that groups of a host's rank count are its ranks); or spread (the first rank of every host, then the second,
// ..., so that consecutive members sit on different hosts). Rank 0 always comes first.
std::vector<int> GroupOrder(GroupBy by, const std::vector<std::string>& hosts);

// Fits a plan to a world of `world` ranks: launches that need more ranks are dropped, with one entry in the plan's
// skipped list naming their group counts, and a note says when the largest launch leaves ranks idle. InvalidArgument
// when nothing fits or a point asks for what a launcher decides (several ranks per process, --cpus, --pin).
Status FitPlanToWorld(int world, Plan* plan, std::vector<std::string>* notes);

}  // namespace commbench
