// A point's traffic for the exports (docs/result-format.md, "Traffic"): the rank that moved the most bytes per op,
// measured, with its model and ratio. One row or sample per point; the per-rank figures stay in the result file.
#pragma once

#include <optional>
#include <string>

#include "lib/result/point_result.h"

namespace commbench::exporting {

struct PointTraffic {
  std::string source;             // tcp_info, shm_copies
  double sent_bytes_per_op = -1;  // -1: not measured (shm counts received bytes only)
  double recv_bytes_per_op = -1;
  double model_sent_bytes_per_op = -1, model_recv_bytes_per_op = -1;
  double ratio = -1;  // measured / model, sent where measured, else received
};

// nullopt where no rank's traffic was measured.
std::optional<PointTraffic> BusiestRankTraffic(const result::PointResult& p);

}  // namespace commbench::exporting
