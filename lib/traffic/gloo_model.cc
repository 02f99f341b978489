#include "lib/traffic/gloo_model.h"

#include <algorithm>

namespace commbench {
namespace traffic {
namespace {

int Mod(int a, int n) { return ((a % n) + n) % n; }

void Payload(std::vector<Transfer>* t, int from, int to, size_t elements) {
  if (elements > 0) t->push_back(Transfer{from, to, elements});
}
void Notify(std::vector<Transfer>* t, int from, int to) { t->push_back(Transfer{from, to, 0, true}); }

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

// AllreduceHalvingDoubling for a power of two: log2(n) exchanges each way with rank ^ 2^i, halving the chunk.
void HalvingDoublingPow2(size_t count, int n, std::vector<Transfer>* t) {
  int steps = 0;
  while ((1 << steps) < n) ++steps;
  const size_t chunk = (count + static_cast<size_t>(n) - 1) / static_cast<size_t>(n);
  for (int r = 0; r < n; ++r) {
    size_t step_chunk = chunk << (steps - 1), send_off = 0, recv_off = 0;
    for (int i = 0; i < steps; ++i) {
      const int bit = 1 << i, dest = r ^ bit;
      const size_t so = send_off + ((dest & bit) ? step_chunk : 0);
      const size_t ro = recv_off + ((r & bit) ? step_chunk : 0);
      // Reduce-scatter sends the half the partner keeps; allgather sends back the half this rank reduced.
      if (so < count) Payload(t, r, dest, std::min(step_chunk, count - so));
      if (ro < count) Payload(t, r, dest, std::min(step_chunk, count - ro));
      Notify(t, r, dest);
      Notify(t, r, dest);
      if (r & bit) send_off += step_chunk, recv_off += step_chunk;
      step_chunk >>= 1;
    }
  }
}

// The textbook ring figure per rank, spread as transfers to the right neighbour (a stand-in, not Gloo's pattern).
void Textbook(size_t elements_per_rank, int n, std::vector<Transfer>* t) {
  for (int r = 0; r < n; ++r) Payload(t, r, Mod(r + 1, n), elements_per_rank);
}

}  // namespace

StatusOr<GlooModel> GlooTransfers(const GlooProblem& p) {
  if (p.n < 1) return InvalidArgument("traffic: rank count " + std::to_string(p.n) + " (accepted: >= 1)");
  GlooModel m;
  const size_t n = static_cast<size_t>(p.n);
  const bool pow2 = (p.n & (p.n - 1)) == 0;
  if (p.n == 1 || p.count == 0) return m;
  switch (p.op) {
    case Collective::kAllreduce:
      if (p.algo == "ring") return Ring(p.count, p.n, &m.transfers), m;
      if (p.algo == "ring_chunked") return RingChunked(p.count, p.n, &m.transfers), m;
      if (p.algo == "halving_doubling") {
        if (pow2) return HalvingDoublingPow2(p.count, p.n, &m.transfers), m;
        Textbook(2 * (n - 1) * p.count / n, p.n, &m.transfers);
        m.exact = false;
        m.note = "gloo halving_doubling on a non-power of two (binary blocks): textbook 2(n-1)/n*S";
        return m;
      }
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
      if (p.algo == "halving_doubling") {
        Textbook((n - 1) * p.count, p.n, &m.transfers);
        m.exact = false;
        m.note = "gloo halving_doubling reduce-scatter: textbook (n-1)/n*S";
        return m;
      }
      break;
  }
  return InvalidArgument("gloo has no " + std::string(Name(p.op)) + " algorithm '" + p.algo + "'");
}

}  // namespace traffic
}  // namespace commbench
