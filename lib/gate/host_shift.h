// Has the host itself changed since the baseline was stored? A gate against a stored baseline compares jobs run
// apart in time, on a shared runner perhaps another one: a slow spell of the host (other tenants of its machine),
// a smaller CPU allotment or a faster runner moves every point as a change of the build would. Both jobs time the
// same fixed workload on the host (lib/result/host_reference.h); a verdict the host's move could explain is
// inconclusive, never a regression or a pass (docs/gate.md, "A host that changed").
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "lib/gate/decision.h"
#include "lib/result/host_reference.h"

namespace commbench::gate {

// The host moved when its reference's ratio is significant and its whole interval lies beyond 1 +- this:
// on this quiet 2-core VM, 11 A/A gate jobs against one stored baseline had reference ratios 0.985-1.028.
inline constexpr double kHostTolerance = 0.03;
// The host's speed is where its undisturbed samples lie: the samples' lower quartile, not their median. Other work
// only adds time, and one burst of it can take a side's middle: a first baseline's 20 samples before its sweep
// read 3.2-3.5 ms for 4, then 5.4-12.0 ms for 15 (another process's spell), and the median moved with them.
inline constexpr double kHostQuantile = 0.25;
// Fewer samples a side than this: not judged (5 a side is the least with which the rank test can reach p < 0.01).
inline constexpr size_t kLeastHostSamples = 5;

struct HostShift {
  bool judged = false;     // both sides had comparable samples
  std::string not_judged;  // why not: "the baseline has no host reference", ...
  size_t base_n = 0, now_n = 0;
  static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  // Of the samples' totals: the ratio of lower quartiles (kHostQuantile), now / base, > 1 is a slower host, its 95 %
  // bootstrap interval and the rank test's p; and each part's ratio, for the reader.
  double ratio = kNaN, lo = kNaN, hi = kNaN, p = 1;
  double loopback_ratio = kNaN, copy_ratio = kNaN;
  bool significant = false;  // the rank test at alpha, and the interval excludes 1
  bool moved = false;        // significant, and the interval lies beyond 1 +- kHostTolerance
  // Judged against this many jobs of the baseline's build (JudgeHostAgainstJobs; 0: against the baseline job's
  // samples). Then the ratio is to the jobs' geometric mean, the interval a prediction interval, p a t test's.
  size_t jobs = 0;

  // The interval reaches past the tolerance on that side: a move that large is not ruled out, whatever the test
  // says (a loaded runner's samples spread, and a capped loopback read 0.995-1.579 under a CI's other tests).
  // Against jobs, the ratio itself past the tolerance: their prediction interval holds the jobs' own spread, so it
  // reaches past 3 % almost always, while a host 4.2-4.6 % slower than its jobs (not significant) came with A/A
  // points 5.6-17.2 % slower than theirs on this VM.
  bool could_be_slower() const { return judged && (jobs > 0 ? ratio : hi) > 1 + kHostTolerance; }
  bool could_be_faster() const { return judged && (jobs > 0 ? ratio : lo) < 1 - kHostTolerance; }

  // "the host is 12.3 % slower than when the baseline was stored (reference ratio 1.123, 95 % interval
  // 1.101-1.150, p 2e-30; loopback round trips x1.141, copies x1.020; 80 and 160 samples)"
  std::string Describe() const;
};

// The host's move from `base` (the baseline's job) to `now` (this job), with the gate's `alpha`.
HostShift JudgeHostShift(const result::HostReference& base, const result::HostReference& now, double alpha,
                         uint64_t seed = 1);

// One job's host speed: the lower quartile (kHostQuantile) of its reference samples' totals, seconds; NaN below
// kLeastHostSamples samples.
double HostSpeed(const result::HostReference& job);

// The host judged as one more job of the baseline's build, as its points are when the baseline has other jobs
// (compare.h, base_jobs_us): `other_jobs_s` holds their HostSpeed. A host that drifts from job to job as it did
// across them has not moved; one past their prediction interval at alpha has. Below kLeastOtherJobs other jobs:
// JudgeHostShift.
HostShift JudgeHostAgainstJobs(const result::HostReference& base, const std::vector<double>& other_jobs_s,
                               const result::HostReference& now, double alpha, uint64_t seed = 1);

// A point's decision on a host that changed, its reason naming the host. A host's move does not touch every point
// alike (a loopback capped at 4 Gbit/s moved the reference x1.73, a 64 KiB point x2.45 and a 1 MiB one x8.65; an
// A/A job on a host 3.5 % slower had 1 MiB 8.9 % slower), so no division by it tells the build's share:
// - the host moved: no timing verdict holds (slower, faster or unchanged: inconclusive);
// - the host is significantly slower, or could be slower by more than the tolerance: a slower verdict is
//   inconclusive (a false alarm must not rest on the host's own slowdown);
// - the host could be faster by more than the tolerance: an unchanged verdict is inconclusive (a faster host
//   can hide a slowdown of its size);
// - otherwise nothing changes; a faster verdict stands unless the host moved (it fails no gate).
void AllowForHost(const HostShift& host, Decision* d);

}  // namespace commbench::gate
