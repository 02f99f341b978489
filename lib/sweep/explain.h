// `--explain`: the A/B axis values that let the diagnosis confirm (or rule out) causes, one factor at a time.
// Pure functions of what was asked or found, what the backends are and the CPUs the sweep may use.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lib/backend/backend.h"
#include "lib/model/spec.h"
#include "lib/sweep/planner.h"

namespace commbench {

struct ExplainExpansion {
  // The requested spec with the added values appended to its axes, and one explain factor per cause (a
  // dedicated stream goes with pinned memory: one factor).
  SweepSpec spec;
  std::vector<std::string> reasons;  // one line per added value, for the console
};

// Every A/B for every series (the planner's product, one factor at a time). `backends`: the capabilities of
// the spec's backends (GPU additions only when one runs on a GPU); `affinity`: the cores the sweep may use,
// e.g. "0-1", which is also what an unrestricted --cpus value means. Applied to its own result it adds nothing.
ExplainExpansion ExpandForExplain(const SweepSpec& spec, const std::vector<BackendCapabilities>& backends,
                                  const std::string& affinity);

// ---- Targeted --explain: the A/B of each cause the first phase suspects, for the series it names ----

// A suspected finding of the first phase: its rule, the points of the series it names (as planned) and the axes
// its rule's A/B varies (the rule's own AbFactor::axes, from the diagnosis registry: this layer cannot see it).
struct Suspect {
  std::string rule;
  std::vector<Point> series;
  std::vector<std::string> factor_axes;
};

// The A/B that tests one suspect: the series' points with that cause's factor changed and nothing else.
struct TargetedAb {
  std::string rule;
  SweepSpec::ExplainFactor factor;  // the values the B side takes
  std::string reason;               // e.g. "--cpus 0: the A/B for CPU oversubscription (one core vs 0-1)"
  std::vector<Point> points;        // the B side, ascending groups
  std::vector<Point> a_points;      // the A side at the same group counts: the suspect's own points
};

struct TargetedAbOptions {
  std::string affinity;  // as for ExpandForExplain
  // The B side runs at most this many of the series' group counts (the smallest, the largest and evenly
  // spaced ones between; 0: all). The A/B compares growth over the range both sides share, so the ends matter
  // most; the middle one lets a step or a saturation show.
  size_t max_group_counts = 3;
};

// The axes whose B values this file can find, one factor each: sync (a world-wide barrier's none, a host sync's
// event), stream, h2d, cpus, pin, concurrency. A rule whose factor varies none of them has no A/B.
std::vector<std::string> AxesWithAb();

// nullopt when no A/B varies the suspect's factor axes (straggler, set-up growth, ...). A B side the sweep already
// measured is returned too: the A/B measures both sides again, alternating, so that they see the same moments.
std::optional<TargetedAb> AbForSuspect(const Suspect& suspect, const TargetedAbOptions& options);

}  // namespace commbench
