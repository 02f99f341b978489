// Traffic models as data: an algorithm's model is the list of transfers one operation makes (who sends how many
// elements to whom), from which each rank's bytes sent and received follow. docs/result-format.md, "Traffic".
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace commbench {
namespace traffic {

// One message of payload: `from` sends `elements` to `to`. Notifications and headers are not payload; a backend
// that sends them counts them as `control` messages (their size is the backend's framing, traffic.h).
struct Transfer {
  int from = 0;
  int to = 0;
  size_t elements = 0;
  bool control = false;  // a notification: counted as a message, its bytes are framing (not elements)
};

// A model's two kinds of message: `elements` of payload (none added when 0), and a payload-free notification.
inline void Payload(std::vector<Transfer>* t, int from, int to, size_t elements) {
  if (elements > 0) t->push_back(Transfer{from, to, elements});
}
inline void Notify(std::vector<Transfer>* t, int from, int to) { t->push_back(Transfer{from, to, 0, true}); }

// What one rank sends and receives per operation.
struct RankTraffic {
  uint64_t sent_bytes = 0;
  uint64_t recv_bytes = 0;
  uint64_t sent_messages = 0;     // payload messages
  uint64_t control_messages = 0;  // notifications the rank sends (payload-free)
};

// Sums transfers per rank (bytes = elements × element size).
std::vector<RankTraffic> PerRank(const std::vector<Transfer>& transfers, int n, size_t element_size);

}  // namespace traffic
}  // namespace commbench
