// How far a rank got, published where the driver can read it without the rank's help: a small file in the
// run's private temporary directory, mapped shared by the rank, which updates it with plain stores (no system
// call per iteration). The driver reads it when a point times out, to name the rank that stopped first.
// Timestamps are CLOCK_MONOTONIC (steady_clock): comparable between processes of one host.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/core/status.h"

namespace commbench {

enum class ProgressPhase : int32_t { kSetup = 0, kWarmup = 1, kTimed = 2, kPointDone = 3 };
std::string_view Name(ProgressPhase phase);

// A copy of a rank's progress as read.
struct ProgressSnapshot {
  int rank = -1;
  int pid = 0;
  std::string host;
  int point_index = -1;  // -1: no point started yet
  ProgressPhase phase = ProgressPhase::kSetup;
  int64_t started = 0;     // iterations of this phase begun
  int64_t completed = 0;   // iterations of this phase completed
  int64_t updated_ns = 0;  // CLOCK_MONOTONIC of the last change
  // The rank met an error and is leaving on its own. A rank killed outright (or crashed) never says so: of the
  // ranks gone, one without this mark is the likelier cause, and the others failed because it vanished.
  bool failed = false;
};

struct ProgressLayout;  // the page's bytes (progress.cc)

// The writer side: one per rank. Moves only; unmaps on destruction (the file stays for the driver).
class ProgressPage {
 public:
  static StatusOr<ProgressPage> Create(const std::string& path, int rank);
  ProgressPage() = default;
  ProgressPage(ProgressPage&& other) noexcept;
  ProgressPage& operator=(ProgressPage&& other) noexcept;
  ~ProgressPage();

  void EnterPhase(int point_index, ProgressPhase phase);  // resets the iteration counts
  void Started(int64_t iterations);                       // of the current phase, cumulative
  void Completed(int64_t iterations, int64_t now_ns);     // likewise; now_ns = CLOCK_MONOTONIC
  void Failed();                                          // marks the page: this rank leaves on an error

 private:
  ProgressLayout* page_ = nullptr;
};

// The reader side: NotFound when the rank never created its page.
StatusOr<ProgressSnapshot> ReadProgress(const std::string& path);

std::string ProgressPath(const std::string& dir, int rank);
int64_t MonotonicNowNs();

// The ranks whose progress stopped first among `late` (those that did not finish): the least far in (point,
// phase, iterations completed, iterations begun), so that of two ranks that completed as many, the one that did
// not begin the next (its peer waits inside it) comes first; ties (ranks waiting inside the same call) are all
// named. A rank without a page counts as the least far of all.
std::vector<ProgressSnapshot> StoppedFirst(const std::vector<ProgressSnapshot>& late);
// Whether `a` is less far in than `b` by (point, phase, iterations completed, iterations begun): the order
// StoppedFirst names by.
bool LessFarIn(const ProgressSnapshot& a, const ProgressSnapshot& b);

// The same progress (process, point, phase, iterations begun and completed, the failure mark): a copy that changed none
// of these shows no progress, whenever it was taken.
bool SameProgress(const ProgressSnapshot& a, const ProgressSnapshot& b);
// Inside one operation of its warm-up or timed loop (begun, not completed). A rank between operations may be
// waiting for its turn or for other groups at the world barrier; one stuck inside an operation stalls its group.
bool InsideAnOp(const ProgressSnapshot& s);

}  // namespace commbench
