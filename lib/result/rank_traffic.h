// What one rank sent and received over a point's timed loop, measured, beside its algorithm's model per operation
// (docs/result-format.md, "Traffic"): per_rank[].traffic in the result, "traffic" in a rank line.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "lib/core/status.h"
#include "lib/result/json_reader.h"

namespace commbench::result {

struct RankTraffic {
  // How it was measured: "tcp_info" (the kernel's counters of the process's TCP sockets, this rank's share of them),
  // "shm_copies" (bytes this rank's code copied out of its peers' shared memory: received only), "" none.
  std::string source;
  int64_t ops = 0;         // collective operations in the window (the timed iterations)
  double sent_bytes = -1;  // over the window; -1: not measured
  double recv_bytes = -1;
  // The algorithm's model per operation (lib/traffic), filled in when the point is aggregated; -1: none.
  double model_sent_bytes_per_op = -1, model_recv_bytes_per_op = -1;
  bool model_exact = false;  // false: the textbook ring figure stands in
  // What the transport adds to the model's payload per operation on the sending side (Gloo: a 48-byte preamble per
  // message, 52 bytes per notification); 0 where it adds nothing (native tcp writes the payload bare).
  double model_framing_bytes_per_op = 0;

  double SentPerOp() const { return sent_bytes < 0 || ops <= 0 ? -1 : sent_bytes / static_cast<double>(ops); }
  double RecvPerOp() const { return recv_bytes < 0 || ops <= 0 ? -1 : recv_bytes / static_cast<double>(ops); }
  // measured / model per op; -1 where either side is missing or the model is zero.
  double SentRatio() const { return Ratio(SentPerOp(), model_sent_bytes_per_op); }
  double RecvRatio() const { return Ratio(RecvPerOp(), model_recv_bytes_per_op); }
  static double Ratio(double measured, double model) { return measured < 0 || model <= 0 ? -1 : measured / model; }
};

nlohmann::json RankTrafficToJson(const RankTraffic& t);
// Problems go to the reader's errors; `path` names the object in them ("rank line.traffic").
RankTraffic ReadRankTraffic(ObjectReader in);
StatusOr<RankTraffic> ReadRankTraffic(const nlohmann::json& j, const std::string& path);

}  // namespace commbench::result
