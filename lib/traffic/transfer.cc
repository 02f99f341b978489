#include "lib/traffic/transfer.h"

namespace commbench {
namespace traffic {

std::vector<RankTraffic> PerRank(const std::vector<Transfer>& transfers, int n, size_t element_size) {
  std::vector<RankTraffic> ranks(static_cast<size_t>(n > 0 ? n : 0));
  for (const Transfer& t : transfers) {
    if (t.from < 0 || t.from >= n || t.to < 0 || t.to >= n) continue;
    if (t.control) {
      ranks[static_cast<size_t>(t.from)].control_messages += 1;
      continue;
    }
    if (t.elements == 0) continue;
    const uint64_t bytes = static_cast<uint64_t>(t.elements) * element_size;
    ranks[static_cast<size_t>(t.from)].sent_bytes += bytes;
    ranks[static_cast<size_t>(t.from)].sent_messages += 1;
    ranks[static_cast<size_t>(t.to)].recv_bytes += bytes;
  }
  return ranks;
}

}  // namespace traffic
}  // namespace commbench
