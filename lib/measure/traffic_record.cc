#include "lib/measure/traffic_record.h"

#include "lib/traffic/traffic.h"

namespace commbench {

std::optional<result::RankTraffic> MeasuredTraffic(const RankResult& loop, int64_t ops,
                                                   const BackendCapabilities& backend, Transport transport,
                                                   int ranks_per_process) {
  result::RankTraffic t;
  t.ops = ops;
  if (transport == Transport::kSharedMemory) {
    if (!backend.counts_peer_copies) return std::nullopt;
    t.source = "shm_copies";
    t.recv_bytes = static_cast<double>(loop.peer_bytes_copied);
    return t;
  }
  if (transport != Transport::kTcp || !loop.tcp.supported) return std::nullopt;
  const double share = 1.0 / (ranks_per_process > 0 ? ranks_per_process : 1);
  t.source = "tcp_info";
  t.sent_bytes = static_cast<double>(loop.tcp.sent) * share;
  t.recv_bytes = static_cast<double>(loop.tcp.received) * share;
  return t;
}

std::optional<traffic::Model> TrafficModelOf(const Point& point) {
  traffic::Request request;
  request.backend = point.backend;
  auto capabilities = CapabilitiesOf(point.backend);
  if (capabilities.ok()) request.model = capabilities->traffic_model;
  request.algo = point.algo;
  request.op = point.op;
  request.count = point.count;
  request.n = point.group_size;
  request.element_size = SizeOf(point.dtype);
  auto model = traffic::ModelOp(request);
  if (!model.ok()) return std::nullopt;
  return std::move(*model);
}

void AddTrafficModel(const traffic::Model& model, int group_rank, result::RankTraffic* t) {
  if (group_rank < 0 || static_cast<size_t>(group_rank) >= model.ranks.size()) return;
  const traffic::RankTraffic& mine = model.ranks[static_cast<size_t>(group_rank)];
  t->model_sent_bytes_per_op = static_cast<double>(mine.sent_bytes);
  t->model_recv_bytes_per_op = static_cast<double>(mine.recv_bytes);
  t->model_exact = model.exact;
  t->model_framing_bytes_per_op =
      static_cast<double>((mine.sent_messages + mine.control_messages) * model.framing_per_message +
                          mine.control_messages * model.control_message_bytes);
}

}  // namespace commbench
