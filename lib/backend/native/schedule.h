// Schedules: every native algorithm is a pure function from (collective, count, rank count, in-place) to a list
// of steps per rank. A step is a list of pulls: the rank writes only its own buffers, reading (copying or
// reducing) regions of its own or its peers' buffers. Transports execute schedules: shm reads peers' buffers in
// place (zero copy); tcp turns each pull into a send by the owner and a receive by the puller.
//
// Because every rank can compute every other rank's schedule, the synchronisation a transport needs follows from
// the schedules themselves (WaitPlan): before a step, wait until each peer has finished the step that last wrote
// what we read (read-after-write) and the steps in which peers read what we are about to overwrite
// (write-after-read). No algorithm carries hand-written flags.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lib/core/types.h"

namespace commbench {
namespace native {

// A rank's buffers. In-place collectives use kOut only (the input lives inside it, as nccl-tests lays it out).
enum class Buf : uint8_t { kIn = 0, kOut = 1, kScratch = 2 };
constexpr int kNumBufs = 3;

struct Loc {
  int rank = 0;
  Buf buf = Buf::kOut;
  size_t offset = 0;  // elements
};

// dst (own buffer) = srcs[0] op srcs[1] op ...; one source is a copy. When dst is one of the sources, it is
// srcs[0] (the kernels allow that alias only).
struct Pull {
  Buf dst_buf = Buf::kOut;
  size_t dst_offset = 0;
  size_t count = 0;
  std::vector<Loc> srcs;
};

struct Step {
  std::vector<Pull> pulls;
};

struct Problem {
  Collective op = Collective::kAllreduce;
  size_t count = 0;  // per-rank count of the smaller buffer (nccl-tests)
  int n = 1;
  bool in_place = false;
  // Pipeline depth of twoshot (the other algorithms ignore it): the vector is cut into this many chunks and step
  // c reduces chunk c while copying the peers' blocks of chunk c-1, so a rank reads a peer's freshly reduced block
  // one step after it was written, while it is likely still in the shared cache. 1 = no pipelining.
  int chunks = 1;
};

// Element counts of each buffer kind (identical on every rank).
struct BufferSizes {
  size_t count[kNumBufs] = {0, 0, 0};
};

struct Schedule {
  Problem problem;
  BufferSizes sizes;
  std::vector<std::vector<Step>> steps;  // [rank][step]; every rank has the same number of steps
  size_t num_steps() const { return steps.empty() ? 0 : steps[0].size(); }
};

// Where a rank's input and output live, given the in-place layout.
Loc InputLoc(const Problem& p, int rank);
Loc OutputLoc(const Problem& p, int rank);
BufferSizes BaseSizes(const Problem& p);

// The algorithms, one entry per (name, collective). Each fills a schedule for all ranks.
struct AlgorithmDesc {
  std::string name;
  Collective op;
  std::string description;
  std::string suits;
};
const std::vector<AlgorithmDesc>& AlgorithmTable();
bool Supports(const std::string& algo, Collective op);
// Builds the named algorithm ("auto" is resolved by the transport before this). InvalidArgument if unknown.
StatusOr<Schedule> BuildSchedule(const std::string& algo, const Problem& problem);

// What a rank must wait for before a step: peer `rank` must have completed `steps_done` steps of this op.
struct PeerWait {
  int rank;
  uint32_t steps_done;
};
struct WaitPlan {
  std::vector<std::vector<PeerWait>> before_step;  // [step]
  std::vector<int> readers;                        // peers that read this rank's buffers at some step
};
WaitPlan MakeWaitPlan(const Schedule& schedule, int rank);

// [step][pull] of `rank`'s steps: whether nothing reads the pull's destination in a later step of the op (no
// peer and not the rank itself): the destination's last write in the op, which a transport may stream past the
// caches when the op's data does not fit in them anyway.
std::vector<std::vector<bool>> FinalPulls(const Schedule& schedule, int rank);

// Which of `rank`'s pulls a shared-memory transport writes with streaming stores, by the op's working set (every
// rank's buffers together, at element_bytes an element). Below kStreamFinalPullsFrom none: the op fits in this
// host's caches (memcpy falls to memory speed between 32 and 64 MiB of working set, streaming_threshold.cc). From
// there the FinalPulls: nothing reads those lines again before they would be evicted, so the read-for-ownership
// of an ordinary store is wasted traffic. From kStreamEveryPullFrom also the pulls that at most kStreamReadByAtMost
// ranks read later in the op (twoshot's reduced blocks at up to 4 ranks): those reads miss the cache either way.
// A block that more ranks read is left to the cache, which serves the later readers (bench/archive.md, "Native
// collectives against the memory roofline", has the A/Bs: 2 and 4 ranks faster streamed, 8 slower).
constexpr size_t kStreamFinalPullsFrom = size_t{32} << 20;
constexpr size_t kStreamEveryPullFrom = 2 * kStreamFinalPullsFrom;
constexpr int kStreamReadByAtMost = 3;
std::vector<std::vector<bool>> StreamedPulls(const Schedule& schedule, int rank, size_t element_bytes);

// Whether some rank's steps write its own input (always in place, where the input lives inside the output). Where
// none does, an op repeated on one input finds it as it was set, and a loop need not copy it in again.
bool WritesInput(const Schedule& schedule);

// Structural checks: every pull in bounds, sources aliasing dst only as srcs[0], and no step in which a peer reads
// a region its owner writes in the same step (which no wait could order). Internal error naming the first issue.
Status Validate(const Schedule& schedule);

}  // namespace native
}  // namespace commbench
