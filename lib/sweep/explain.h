// `--explain`: the A/B axis values a sweep needs so that the diagnosis can confirm (or rule out) causes in the
// same result, one factor at a time. A pure function of the requested spec, what its backends are (their
// capabilities) and the CPUs the sweep may use.
#pragma once

#include <string>
#include <vector>

#include "lib/backend/backend.h"
#include "lib/sweep/spec.h"

namespace commbench {

struct ExplainExpansion {
  // The requested spec with the added values appended to its axes, and one explain factor per cause (a
  // dedicated stream goes with pinned memory: one factor).
  SweepSpec spec;
  std::vector<std::string> reasons;  // one line per added value, for the console
};

// `backends`: the capabilities of the spec's backends (GPU additions only when one runs on a GPU); `affinity`:
// the cores the sweep may use, e.g. "0-1", which is also what an unrestricted --cpus value means. Applied to its
// own result it adds nothing more.
ExplainExpansion ExpandForExplain(const SweepSpec& spec, const std::vector<BackendCapabilities>& backends,
                                  const std::string& affinity);

}  // namespace commbench
