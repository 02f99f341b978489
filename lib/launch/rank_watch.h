// What the driver knows of each rank while a launch runs: its progress page (lib/measure/progress.h), when that
// page last changed on the driver's own clock (so that ranks on other hosts, whose monotonic clocks differ,
// compare alike), and, for ranks on this host, whether the process still runs. The driver's --timeout fires when
// no rank's page changed for that long; a point that keeps iterating never times out, however long it is.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "lib/measure/progress.h"

namespace commbench {

// kUnknown: the rank runs on another host, or never published its pid.
enum class RankProcessState { kUnknown, kRunning, kStopped, kGone };

// The state of `pid` when `host` is this host: stopped (SIGSTOP, a debugger), a zombie or no such process, or
// running (also asleep: waiting in a collective is running).
RankProcessState ProcessStateOf(pid_t pid, const std::string& host);
// The same from a line of /proc/PID/stat. A process the kernel marks exiting is gone already: a SIGKILLed rank
// closes its sockets before it is a zombie, and on a busy host its state still reads running while its peers fail.
RankProcessState StateOfStatLine(const std::string& line);

struct RankView {
  ProgressSnapshot progress;  // progress.rank is set; progress.pid == 0: no page published
  RankProcessState state = RankProcessState::kUnknown;
  double idle_s = 0;  // since its page last changed (or the launch started), on the driver's clock
};

// The ranks to name as the ones whose progress stopped first, among `late` (those that did not finish the point):
// a rank whose process is stopped or gone comes before every rank that merely waits (its peers wait for it), and
// among those left the least far in, as StoppedFirst orders them.
std::vector<RankView> StoppedFirstViews(const std::vector<RankView>& late);

// ", last completed timed iteration 4 (iteration 5 begun)", ", setting up" or ", after its timed loop": how far
// into its point a rank was, from its page.
std::string DescribePhase(const ProgressSnapshot& progress);

// ", host H" and DescribePhase: where a rank was ("" when it published no page).
std::string DescribeWhere(const RankView& view);

class RankWatch {
 public:
  using Clock = std::chrono::steady_clock;
  RankWatch(std::string progress_dir, int world, Clock::time_point start);

  // Reads every rank's page; true when any changed since the last poll.
  bool Poll(Clock::time_point now);
  // Records ranks on this host whose process is gone, in the order first seen: a launcher (mpirun, srun) reports
  // only its own exit, after it has stopped the other ranks too.
  void NoteGone();
  const std::vector<int>& gone() const { return gone_; }
  // The first rank seen gone whose page does not say it failed on its own (killed, crashed: the likelier cause of
  // its peers' failures); -1 when there is none.
  int FirstGoneWithoutAWord() const;
  // Whether any of ranks [first, last] marked its page failed (as last polled).
  bool AnySaidItFailed(int first, int last) const;

  RankView View(int rank, Clock::time_point now) const;  // the process state is read now

  // True when some rank has been inside one operation (begun, not completed) of its warm-up or timed loop for
  // longer than `limit` without its page changing: its group is stuck, whatever the other groups still do. (A rank
  // between operations may be waiting for its turn, or for other groups at the world barrier.)
  bool AnyStuckInsideAnOp(Clock::time_point now, std::chrono::duration<double> limit) const;

 private:
  struct Rank {
    ProgressSnapshot last;
    Clock::time_point changed;
    bool gone = false;
  };
  std::string dir_;
  std::vector<Rank> ranks_;
  std::vector<int> gone_;
};

}  // namespace commbench
