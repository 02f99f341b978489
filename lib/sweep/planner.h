// The pure planner: SweepSpec -> launches (one set of rank processes each) -> points.
#pragma once

#include <string>
#include <vector>

#include "lib/backend/backend.h"
#include "lib/sweep/spec.h"

namespace commbench {

// One measured configuration (DESIGN §5 topology: world = groups x group_size).
struct Point {
  std::string backend;
  Collective op = Collective::kAllreduce;
  std::string algo = "auto";
  DataType dtype = DataType::kF32;
  ReduceOp reduce = ReduceOp::kSum;
  int groups = 1;
  int group_size = 2;
  uint64_t bytes = 0;  // nccl-tests size (see lib/stats/bandwidth.h), after rounding to whole elements
  size_t count = 0;    // per-rank count of the smaller buffer (OpRequest::count)
  bool in_place = false;
  Sync sync = Sync::kNone;
  Concurrency concurrency = Concurrency::kConcurrent;
  int ranks_per_process = 1;
  Pin pin = Pin::kNone;
  std::string cpus;
  // The backend's device (its capabilities): GPU points carry the GPU axes, CPU points the defaults.
  DeviceKind device = DeviceKind::kCpu;
  Transport transport = Transport::kUnknown;  // the backend's (BackendCapabilities), recorded per point
  GpuAxes gpu;
  // The acceptance phase that ran it ("host", "pairs-2", ...); "" for a sweep. Part of the id: the same axes
  // measured in two phases are two points.
  std::string phase;

  int world() const { return groups * group_size; }
  bool gpu_backend() const { return device == DeviceKind::kGpu; }
  std::string Id() const;  // unique within a sweep
  OpRequest Request() const;
};

// Points that share one set of spawned ranks: same world size and process layout.
struct Launch {
  int world = 1;
  int ranks_per_process = 1;
  Pin pin = Pin::kNone;
  std::string cpus;
  std::vector<Point> points;
  // SPMD: which launcher rank runs each of the launch's ranks (WorkerPlan::order); empty: by the spec's
  // --group-by. Acceptance's host pairs set it.
  std::vector<int> order;

  int processes() const { return (world + ranks_per_process - 1) / ranks_per_process; }
};

struct Skip {
  std::string what;
  std::string reason;
};

struct Plan {
  std::vector<Launch> launches;
  std::vector<Skip> skipped;
  size_t point_count() const;
};

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
