// Progress across hosts, for SPMD runs (no driver reads the ranks' pages there): each rank publishes its progress
// page (lib/measure/progress.h) into the run's store as a chain of write-once keys PREFIX<rank>/<k> whenever it
// changed, at most once per period; rank 0 follows every rank's chain and knows, on its own clock, when each last
// moved and how far it got.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "lib/measure/progress.h"
#include "lib/rendezvous/store.h"

namespace commbench {

class ProgressBeacon {
 public:
  using Clock = std::chrono::steady_clock;
  // `prefix` + rank: this rank's chain (e.g. "launch/3/beat/" + "5"); `page_path`: its progress page.
  ProgressBeacon(Store* store, std::string prefix, int rank, std::string page_path,
                 Clock::duration period = std::chrono::seconds(1));
  // Publishes the page when it changed and a period passed since the last publication; true when it changed.
  bool Tick(Clock::time_point now);

 private:
  Store* store_;
  std::string chain_;
  std::string page_path_;
  Clock::duration period_;
  Clock::time_point next_;
  ProgressSnapshot last_;
  int published_ = 0;
};

class BeatWatch {
 public:
  using Clock = std::chrono::steady_clock;
  BeatWatch(Store* store, std::string prefix, int world, Clock::time_point start);
  // Reads every rank's new beats; true when any arrived.
  bool Poll(Clock::time_point now);
  // Rank r's last published progress (pid 0: none yet) and when it arrived (or the watch started).
  const ProgressSnapshot& Last(int rank) const { return ranks_[static_cast<size_t>(rank)].last; }
  double IdleSeconds(int rank, Clock::time_point now) const;
  // Some rank's last beat shows it inside one operation of its warm-up or timed loop, and nothing newer came for
  // longer than `limit`: its group is stuck, whatever the other groups still do.
  bool AnyStuckInsideAnOp(Clock::time_point now, std::chrono::duration<double> limit) const;

 private:
  struct Rank {
    ProgressSnapshot last;
    Clock::time_point changed;
    int next = 0;
  };
  Store* store_;
  std::string prefix_;
  std::vector<Rank> ranks_;
};

// The snapshot as a beat carries it, and back (nullopt-like: pid 0 when unreadable).
std::string ProgressToJson(const ProgressSnapshot& s);
ProgressSnapshot ProgressFromJson(const std::string& text);

}  // namespace commbench
