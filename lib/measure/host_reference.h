// The host's own speed, measured apart from what a gate compares: a fixed workload of the resources a collective
// on this host uses (round trips of small and 64 KiB messages over a fresh loopback TCP connection between two
// threads, and a copy between freshly mapped buffers), timed. A stored baseline carries its samples; a gate job
// measures them again, so that a host that became slower or faster since the baseline (a slow spell of a shared
// runner, another runner, a smaller CPU allotment) is told apart from a slower build (lib/gate/host_shift.h).
// Each sample sets up its own connection and buffers, so that samples vary as much as separate jobs would.
#pragma once

#include "lib/core/status.h"
#include "lib/result/host_reference.h"

namespace commbench {

// One sample of `w` (a few milliseconds). Unavailable, naming the call, when a socket or a mapping fails.
StatusOr<result::HostReferenceSample> MeasureHostReference(const result::HostReferenceWorkload& w = {});

// Adds `n` samples to `r` (of its workload). An error as MeasureHostReference's (the samples before it kept).
Status AddHostReferenceSamples(int n, result::HostReference* r);

}  // namespace commbench
