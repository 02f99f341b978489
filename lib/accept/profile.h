// Acceptance profiles (configs/acceptance/*.yaml): what `commbench accept` runs and the limits it judges by. A
// profile names the collectives and sizes, the backend, busbw floors (absolute, declared with their source, or a
// fraction of a peak the same run measures), latency and tail ceilings, the repeats before a check fails, a time
// budget, the localisation phases and what pre-flight expects of each host. Every problem of a file is one line
// "FILE:LINE: KEY: ..." (lib/config), InvalidArgument: exit 2 at the CLI.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/core/status.h"
#include "lib/core/types.h"

namespace commbench::accept {

// The localisation steps, in the order they run: the whole cluster, each host's own ranks, bisection of the host
// list (lib/accept/bisect.h: log2(hosts) launches), host pairs in random re-pairing rounds (`rounds` launches; the
// only phase that names a slow link). Bisection runs before pairs because it is cheaper: when it names one host
// clearly, the pairs are not needed.
// kConfirm is no phase a profile lists: it re-tests the suspects the others named (ConfirmSpec, judge/confirm.cc).
enum class Phase { kCluster, kHost, kBisection, kPairs, kConfirm };
std::string_view Name(Phase p);
StatusOr<Phase> ParsePhase(std::string_view s);
const std::vector<Phase>& AllPhases();

// The peak a relative floor is a fraction of, measured in the same run at the same op and size.
enum class PeakOf {
  kNone,      // an absolute floor
  kBestPair,  // the best host pair of the pairs phase
  kBestHost,  // the best host of the host phase
};
std::string_view Name(PeakOf p);

// busbw >= limit at one size (and op, and phase, where given).
struct Floor {
  std::optional<Phase> phase;    // none: every phase that measures this op and size
  std::optional<Collective> op;  // none: every op
  uint64_t bytes = 0;
  double busbw_gbps = 0;  // absolute (declared) when of == kNone
  double fraction = 0;    // relative: fraction x the peak `of`
  PeakOf of = PeakOf::kNone;
  std::string source;  // where a declared number comes from ("" when the profile does not say)
  int line = 0;        // in the profile, for messages
};

// Per-iteration time ceilings: the median (small-message latency) and the tail (p99 / p50).
struct Ceiling {
  std::optional<Phase> phase;
  std::optional<Collective> op;
  std::optional<uint64_t> bytes;  // none: every size
  double p50_us = 0;              // 0: no latency ceiling
  double p99_over_p50 = 0;        // 0: no tail ceiling
  int line = 0;
};

struct PairsSpec {
  int rounds = 5;  // random re-pairing rounds (Imbue's host validation uses 15)
  uint64_t seed = 1;
  double pair_fraction = 0.7;     // a pair below this share of the typical pair fails (LocalizeOptions)
  double slow_rank_factor = 2.0;  // a rank whose median time is this many times its group peers' is slow
  // Small-message latency (each op's smallest size, when the profile has a larger one), judged like busbw in the
  // host and pairs phases: a host or pair whose median takes longer than typical / latency_fraction, or whose p99
  // longer than typical / tail_fraction, fails (judge/latency.cc).
  double latency_fraction = 0.5;
  double tail_fraction = 0.25;
  // At the bandwidth size (each op's largest) a pair whose p99 time is longer than typical / this fails: a link slow
  // for part of a point (a cap that comes and goes within it) that the pair's median hides.
  double bandwidth_tail_fraction = 0.5;
};

// A straggler rank: the last of its group (by its own time, its fastest iteration: a rank slow by itself never has
// a fast one, while the peers that wait for it had some) at `share` or more of the points it ran, its own time
// `factor` times its peers' and `excess_us` more than theirs (median over those points).
struct StragglerSpec {
  double share = 0.75;
  double factor = 2.0;
  double excess_us = 1000;
};

// Which fingerprint keys drift compares (lib/accept/judge/drift.cc); a pattern ending in '*' matches a prefix.
struct DriftSpec {
  std::vector<std::string> must_match;  // empty: every key
  std::vector<std::string> may_differ;  // left out even when must_match names them
};

// Re-testing each suspect before it fails the cluster (lib/accept/confirm.h, judge/confirm.cc): `rounds` launches,
// each with the suspect (its host beside a known-good partner, or its link) and a control pair of known-good hosts
// measured at the same moment. A re-test repeat fails where the suspect's figure is beyond the line that named it,
// against the control's. Confirmed: at least `confirmed_share` of its repeats failed; intermittent: at least
// `intermittent_repeats` failed, but fewer than that share; otherwise not confirmed (left out of the verdict).
struct ConfirmSpec {
  int rounds = 4;  // 0: suspects fail unconfirmed
  double confirmed_share = 0.75;
  int intermittent_repeats = 2;
};

struct BisectionSpec {
  double block_fraction = 0.7;  // a block below this share of the typical block of its level fails (BisectOptions)
};

// What every host must show before anything is measured (a missing one: exit 3, named per host).
struct PreflightSpec {
  int hosts = 0;           // expected host count; 0: whatever the launcher gives
  int ranks_per_host = 0;  // 0: not checked
  std::string interface;   // "" : not checked
  int gpus_per_host = 0;   // 0: not checked
};

struct Profile {
  std::string path, name, description;
  std::string backend = "gloo";
  std::vector<Collective> ops;
  std::vector<uint64_t> sizes;  // ascending, unique
  std::vector<Floor> floors;
  std::vector<Ceiling> ceilings;
  int repeats = 1;            // independent runs of a check before it fails (it fails only if every one did)
  double time_budget_s = 0;   // the whole acceptance run
  std::vector<Phase> phases;  // in run order
  PairsSpec pairs;
  StragglerSpec straggler;
  DriftSpec drift;
  BisectionSpec bisection;
  ConfirmSpec confirm;
  PreflightSpec preflight;

  bool Runs(Phase p) const;
};

// Reads and checks `path`; every problem of the file in one InvalidArgument, one line each. `backends`: the names
// `backend` may take (the backend registry's: RegisteredBackends(), which this layer cannot see).
StatusOr<Profile> LoadProfile(const std::string& path, const std::vector<std::string>& backends);
// The same over text already read (`path` names it in messages).
StatusOr<Profile> ParseProfile(const std::string& text, const std::string& path,
                               const std::vector<std::string>& backends);

}  // namespace commbench::accept
