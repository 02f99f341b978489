#include "lib/traffic/gloo_model.h"

#include <algorithm>

#include "lib/traffic/gloo_halving_doubling.h"

namespace commbench {
namespace traffic {
namespace {

int Mod(int a, int n) { return ((a % n) + n) % n; }

// AllreduceRing: n-1 rounds, each sending the whole buffer to the right and a notification to the left.
void Ring(size_t count, int n, std::vector<Transfer>* t) {
  for (int r = 0; r < n; ++r) {
    for (int round = 0; round < n - 1; ++round) {
      Payload(t, r, Mod(r + 1, n), count);
      Notify(t, r, Mod(r - 1, n));
    }
  }
}

// AllreduceRingChunked: 2n chunks of at least 256 elements, double-buffered around the ring. An empty chunk
// still sends one element (Gloo's guard against a hang).
void RingChunked(size_t count, int n, std::vector<Transfer>* t) {
  const int chunks = 2 * n;
  const size_t chunk = std::max<size_t>(256, (count + static_cast<size_t>(chunks) - 1) / static_cast<size_t>(chunks));
  auto length = [&](int offset) {
    const size_t at = static_cast<size_t>(offset % chunks) * chunk;
    return at < count ? std::min(chunk, count - at) : 1;
  };
  for (int r = 0; r < n; ++r) {
    const int right = Mod(r + 1, n), left = Mod(r - 1, n);
    auto offset = [&](int round) { return ((2 * r) - (round & ~0x1) + (round & 0x1) + chunks) % chunks; };
    Payload(t, r, right, length(2 * r));
    Payload(t, r, right, length(2 * r + 1));
    for (int round = 2; round < chunks; ++round) {
      Notify(t, r, left);
      Payload(t, r, right, length(offset(round)));
    }
    for (int round = 0; round < chunks - 4; ++round) {
      Notify(t, r, left);
      Payload(t, r, right, length(offset(round)));
    }
    Notify(t, r, left);
  }
}

}  // namespace

StatusOr<GlooModel> GlooTransfers(const GlooProblem& p) {
  if (p.n < 1) return InvalidArgument("traffic: rank count " + std::to_string(p.n) + " (accepted: >= 1)");
  GlooModel m;
  const size_t n = static_cast<size_t>(p.n);
  if (p.n == 1 || p.count == 0) return m;
  switch (p.op) {
    case Collective::kAllreduce:
      if (p.algo == "ring") return Ring(p.count, p.n, &m.transfers), m;
      if (p.algo == "ring_chunked") return RingChunked(p.count, p.n, &m.transfers), m;
      if (p.algo == "halving_doubling") return GlooHalvingDoublingAllreduce(p.count, p.n, &m.transfers), m;
      break;
    case Collective::kAllgather:
      if (p.algo == "ring") {  // AllgatherRing: n-1 blocks to the right
        for (int r = 0; r < p.n; ++r)
          for (int s = 0; s < p.n - 1; ++s) Payload(&m.transfers, r, Mod(r + 1, p.n), p.count);
        return m;
      }
      break;
    case Collective::kReduceScatter:
      if (p.algo == "ring_slice") return Ring(p.count * n, p.n, &m.transfers), m;  // allreduce of the whole buffer
      if (p.algo == "halving_doubling") return GlooHalvingDoublingReduceScatter(p.count, p.n, &m.transfers), m;
      break;
  }
  return InvalidArgument("gloo has no " + std::string(Name(p.op)) + " algorithm '" + p.algo + "'");
}

}  // namespace traffic
}  // namespace commbench
