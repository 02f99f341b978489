#include "lib/export/point_traffic.h"

namespace commbench::exporting {

std::optional<PointTraffic> BusiestRankTraffic(const result::PointResult& p) {
  std::optional<PointTraffic> best;
  double most = -1;
  for (const result::RankTime& rank : p.per_rank) {
    if (!rank.traffic) continue;
    const result::RankTraffic& t = *rank.traffic;
    const bool sent = t.SentPerOp() >= 0;
    const double bytes = sent ? t.SentPerOp() : t.RecvPerOp();
    if (bytes <= most) continue;
    most = bytes;
    best = PointTraffic{t.source,
                        t.SentPerOp(),
                        t.RecvPerOp(),
                        t.model_sent_bytes_per_op,
                        t.model_recv_bytes_per_op,
                        sent ? t.SentRatio() : t.RecvRatio()};
  }
  return best;
}

}  // namespace commbench::exporting
