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
  std::string sync = "none";
  std::string concurrency = "concurrent";  // or "sequential": one group at a time (the shared-bandwidth A/B)
  int ranks_per_process = 1;
  std::string pin = "none";
  std::string cpus;
  GpuAxes gpu;

  int world() const { return groups * group_size; }
  bool gpu_backend() const;
  std::string Id() const;  // unique within a sweep
  OpRequest Request() const;
};

// Points that share one set of spawned ranks: same world size and process layout.
struct Launch {
  int world = 1;
  int ranks_per_process = 1;
  std::string pin = "none";
  std::string cpus;
  std::vector<Point> points;

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

// Backends are asked whether they support each request (Backend::Supports); what they refuse goes to skipped,
// with the backend's reason. Backends that are unavailable on this host are skipped whole, with the reason.
StatusOr<Plan> PlanSweep(const SweepSpec& spec);

}  // namespace commbench
