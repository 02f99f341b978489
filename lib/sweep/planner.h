// The pure planner: SweepSpec -> launches (one set of rank processes each) -> points.
#pragma once

#include <string>
#include <vector>

#include "lib/backend/backend.h"
#include "lib/model/point.h"
#include "lib/model/spec.h"

namespace commbench {

// The backend's request for one point (what Backend::supports and Communicator::Prepare take).
OpRequest RequestOf(const Point& p);

// Checks values that lists and ranges could not (names, combinations, world size). InvalidArgument names the
// flag, the bad value and what is accepted. Backend names are the registry's to check (CreateBackend).
Status ValidateSpec(const SweepSpec& spec);

// `backends` describes (at least) the spec's backends (DescribeRegisteredBackends). Each is asked whether it
// supports each request; what it refuses goes to skipped, with its reason. Backends that are unavailable on this
// host, or need another launcher, are skipped whole, with the reason. Reads nothing but its arguments.
StatusOr<Plan> PlanSweep(const SweepSpec& spec, const std::vector<BackendDescription>& backends);

// A list of points (e.g. --explain's A/B points) admitted and grouped into launches as PlanSweep does, rather
// than the spec's product; `spec` gives what they share (placement choice, launcher). Each point's backend must
// be described in `backends`.
StatusOr<Plan> PlanPoints(const SweepSpec& spec, const std::vector<Point>& points,
                          const std::vector<BackendDescription>& backends);

}  // namespace commbench
