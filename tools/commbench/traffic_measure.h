// `commbench traffic --measure`: the step's bucket sizes run as a sweep (local ranks, the sweep's mpirun and srun
// launchers, or SPMD: ranks that a launcher started, meeting at --rendezvous), the measured bytes and time per step
// per rank printed beside the model.
#pragma once

#include <functional>
#include <string>

#include "lib/core/status.h"
#include "lib/launch/driver.h"
#include "lib/model/point.h"
#include "lib/model/spec.h"
#include "lib/traffic/step.h"

namespace commbench::cli {

struct MeasureRequest {
  std::string backend;    // the traffic command's: native, native-tcp, gloo, nccl, mpi
  std::string transport;  // native only: tcp (runs native-tcp) or shm (runs native)
  std::string dtype;      // bf16, f32, ...
  std::string launcher = "local";
  double time_budget_s = 0.2;
  std::string host;  // "" the sweep's default
  std::string out;   // the sweep's result file; "" a temporary one, removed after
};

// The checked and planned sweep, made before anything is printed so that bad input writes one line only.
struct PlannedMeasure {
  SweepSpec spec;
  Plan plan;
  std::string backend, dtype;  // as the sweep runs them
};

// InvalidArgument (exit 2) naming the bad value: a launcher, time budget, world over --max-world, an output that
// cannot be written, a backend this host cannot run.
StatusOr<PlannedMeasure> PlanMeasure(const traffic::StepRequest& request, const traffic::StepTraffic& step,
                                     const MeasureRequest& measure);

// Where the ranks run when a launcher started them (SPMD, rank 0 of the session): its session runs the plan.
struct SpmdMeasure {
  std::function<DriverOutcome(const Plan&, const DriverOptions&)> run_plan;
  std::string where;     // the measured table names the ranks so: "SPMD ranks from slurm", ...
  std::string* failure;  // set to what the other ranks are told when the run failed
};

// Runs it and prints the measured tables. Exit code: 0 measured, 1 the run failed (wrong results, a failed rank).
// `spmd` null: the sweep's own launcher starts the ranks.
int RunMeasure(const traffic::StepRequest& request, const traffic::StepTraffic& step, const MeasureRequest& measure,
               const PlannedMeasure& planned, const SpmdMeasure* spmd = nullptr);

}  // namespace commbench::cli
