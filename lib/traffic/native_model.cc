#include "lib/traffic/native_model.h"

#include <algorithm>

namespace commbench {
namespace traffic {
namespace {

// The schedules' block split: balanced, aligned to 16 elements (schedule.cc's BlockStart).
size_t BlockStart(size_t count, int parts, int i) {
  size_t unit = (count + static_cast<size_t>(parts) - 1) / static_cast<size_t>(parts);
  unit = (unit + 15) / 16 * 16;
  return std::min(count, unit * static_cast<size_t>(i));
}
size_t BlockLen(size_t count, int parts, int i) {
  return BlockStart(count, parts, i + 1) - BlockStart(count, parts, i);
}

int Mod(int a, int n) { return ((a % n) + n) % n; }

void Add(std::vector<Transfer>* out, int from, int to, size_t elements) {
  if (elements > 0 && from != to) out->push_back(Transfer{from, to, elements});
}

// Every rank takes `count` from every peer (allgather blocks, reduce-scatter blocks, one-shot allreduce inputs).
std::vector<Transfer> Direct(const NativeProblem& p) {
  std::vector<Transfer> t;
  for (int r = 0; r < p.n; ++r)
    for (int q = 0; q < p.n; ++q) Add(&t, q, r, p.count);
  return t;
}

// Reduce-scatter of each rank's block from all peers, then the blocks gathered by all.
std::vector<Transfer> TwoShot(const NativeProblem& p) {
  std::vector<Transfer> t;
  for (int r = 0; r < p.n; ++r)
    for (int q = 0; q < p.n; ++q) Add(&t, q, r, BlockLen(p.count, p.n, r));
  for (int r = 0; r < p.n; ++r)
    for (int q = 0; q < p.n; ++q) Add(&t, q, r, BlockLen(p.count, p.n, q));
  return t;
}

// n-1 steps per phase, each from the left neighbour: allreduce moves balanced blocks, the others whole rank blocks.
std::vector<Transfer> Ring(const NativeProblem& p) {
  std::vector<Transfer> t;
  const int n = p.n;
  auto len = [&](int b) { return p.op == Collective::kAllreduce ? BlockLen(p.count, n, b) : p.count; };
  const bool rs = p.op != Collective::kAllgather, ag = p.op != Collective::kReduceScatter;
  for (int r = 0; r < n; ++r) {
    const int left = Mod(r - 1, n);
    for (int st = 0; rs && st < n - 1; ++st) Add(&t, left, r, len(Mod(r - st - 2, n)));
    for (int st = 0; ag && st < n - 1; ++st) Add(&t, left, r, len(Mod(r - st - 1, n)));
  }
  return t;
}

// Recursive halving and doubling over the largest power of two p2; the first 2*rem ranks fold pairwise into the
// odd member before and get the result back after.
std::vector<Transfer> HalvingDoubling(const NativeProblem& p) {
  std::vector<Transfer> t;
  const int n = p.n;
  int p2 = 1, log2 = 0;
  while (p2 * 2 <= n) p2 *= 2, ++log2;
  const int rem = n - p2;
  const bool rs = p.op != Collective::kAllgather, ag = p.op != Collective::kReduceScatter;
  const size_t total = p.op == Collective::kAllreduce ? p.count : p.count * static_cast<size_t>(n);
  auto new_rank = [&](int r) { return r < 2 * rem ? (r % 2 == 1 ? r / 2 : -1) : r - rem; };
  auto real_rank = [&](int nr) { return nr < rem ? 2 * nr + 1 : nr + rem; };
  auto region = [&](int j) -> size_t {  // where new rank j's part of the vector starts
    if (p.op == Collective::kAllreduce) return BlockStart(p.count, p2, j);
    const int first = j == p2 ? n : (j < rem ? 2 * j : j + rem);
    return static_cast<size_t>(first) * p.count;
  };
  for (int r = 0; r < n; ++r) {
    if (r < 2 * rem && r % 2 == 1) Add(&t, r - 1, r, rs ? total : p.count);  // fold
    if (r < 2 * rem && r % 2 == 0) Add(&t, r + 1, r, p.op == Collective::kReduceScatter ? p.count : total);
    const int nr = new_rank(r);
    if (nr < 0) continue;
    int lo = 0, hi = p2;
    for (int k = 0; rs && k < log2; ++k) {  // halving: keep the half holding nr, reduce the partner's copy of it
      const int d = p2 >> (k + 1);
      if ((nr & d) == 0)
        hi = lo + d;
      else
        lo += d;
      Add(&t, real_rank(nr ^ d), r, region(hi) - region(lo));
    }
    for (int i = 0; ag && i < log2; ++i) {  // doubling: the partner's regions, largest distance first
      const int d = p2 >> (log2 - i);
      const int plo = (nr ^ d) & ~(d - 1);
      Add(&t, real_rank(nr ^ d), r, region(plo + d) - region(plo));
    }
  }
  return t;
}

bool Runs(const std::string& algo, Collective op) {
  if (algo == "direct" || algo == "ring" || algo == "hd") return true;
  return algo == "twoshot" && op == Collective::kAllreduce;
}

}  // namespace

StatusOr<std::vector<Transfer>> NativeTransfers(const NativeProblem& p) {
  if (p.n < 1) return InvalidArgument("traffic: rank count " + std::to_string(p.n) + " (accepted: >= 1)");
  if (!Runs(p.algo, p.op)) {
    return InvalidArgument("native has no " + std::string(Name(p.op)) + " algorithm '" + p.algo +
                           "' (accepted: direct, ring, hd" + (p.op == Collective::kAllreduce ? ", twoshot)" : ")"));
  }
  if (p.n == 1) return std::vector<Transfer>{};
  if (p.algo == "direct") return Direct(p);
  if (p.algo == "twoshot") return TwoShot(p);
  if (p.algo == "ring") return Ring(p);
  return HalvingDoubling(p);
}

}  // namespace traffic
}  // namespace commbench
