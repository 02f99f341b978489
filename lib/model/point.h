// The points model: what one measured configuration is (Point), and how points are grouped into launches that
// share a set of rank processes (Launch, Plan). Pure data over lib/core's vocabulary: the typed result model and
// everything above it read points without knowing how they were planned or which backend runs them.
#pragma once

#include <string>
#include <vector>

#include "lib/core/axes.h"
#include "lib/core/types.h"

namespace commbench {

// One measured configuration (docs/design.md §5 topology: world = groups x group_size).
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

}  // namespace commbench
