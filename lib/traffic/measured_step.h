// `commbench traffic --measure`: a step's bucket sizes measured on a real run, summed into one step per rank beside
// the model. Pure data: the command runs the sweep and fills BucketMeasure from its points.
#pragma once

#include <string>
#include <vector>

#include "lib/traffic/step.h"

namespace commbench {
namespace traffic {

// One bucket size's point, per group rank; -1 where a side was not measured (shared memory counts received only).
struct BucketMeasure {
  std::string algo;  // what ran
  std::vector<double> sent_per_op, recv_per_op;
  std::vector<double> time_us_per_op;  // the mean of the rank's timed operations
};

// One rank's step: each bucket size's per-op figures times its bucket count, summed. The time is the buckets one
// after another, as isolated operations (no overlap with the backward pass, no two buckets in flight).
struct MeasuredRankStep {
  double sent_bytes = -1, recv_bytes = -1;
  double time_s = 0;
};

// InvalidArgument when `measured` does not hold one entry per bucket group, each with one figure per rank.
StatusOr<std::vector<MeasuredRankStep>> SumMeasuredStep(const StepTraffic& step,
                                                        const std::vector<BucketMeasure>& measured, int world);

struct MeasureLabel {
  std::string backend;  // as the sweep ran it (native-tcp)
  std::string dtype;    // as it ran (f16 standing in for bf16 where the backend lacks bf16: the same bytes)
  std::string where;    // "local ranks", "srun", ...
};

// The per-bucket table and the per-rank step table, measured beside the model, with measured/model ratios.
std::string MeasuredStepToText(const StepRequest& request, const StepTraffic& step,
                               const std::vector<BucketMeasure>& measured, const std::vector<MeasuredRankStep>& ranks,
                               const MeasureLabel& label);

}  // namespace traffic
}  // namespace commbench
