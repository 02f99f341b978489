#include "lib/traffic/gloo_halving_doubling.h"

#include <algorithm>

namespace commbench {
namespace traffic {
namespace {

struct Block {
  int offset = 0;
  int size = 0;  // a power of two
};

// n's set bits, largest first at rank 0: 7 = [0,4) [4,6) [6,7).
std::vector<Block> BinaryBlocks(int n) {
  std::vector<Block> blocks;
  int top = 1;
  while (top * 2 <= n) top *= 2;
  for (int offset = 0, size = top; size > 0; size /= 2) {
    if (n & size) blocks.push_back(Block{offset, size}), offset += size;
  }
  return blocks;
}

int Log2(size_t pow2) {
  int bits = 0;
  while ((size_t{1} << bits) < pow2) ++bits;
  return bits;
}

// The low `bits` bits of `value`, reversed: where a block's halving leaves each rank's chunk.
int Reverse(int value, int bits) {
  int out = 0;
  for (int b = 0; b < bits; ++b) out = (out << 1) | ((value >> b) & 1);
  return out;
}

// One halving step within a block: what this rank sends its partner (the half the partner keeps) and the half it
// keeps (which the doubling sends back). Counts are 0 where the half starts past the end of the buffer.
struct Halving {
  int peer = 0;
  size_t send_count = 0;
  size_t keep_offset = 0;
  size_t keep_count = 0;
};

struct RankPlan {
  std::vector<Halving> steps;
  size_t chunk_after = 0;  // the step chunk after the last halving (what sizes the hand-up to a larger block)
  size_t held = 0;         // elements this rank holds reduced after the halving (its last kept half, or all)
  size_t held_offset = 0;
};

// Chunks are sized for the largest block (2^floor(log2 n) of them), in every block: a smaller block's ranks end
// with bigger chunks.
RankPlan Plan(int rank, const Block& block, size_t count, int n) {
  const int global_steps = Log2(static_cast<size_t>(BinaryBlocks(n).front().size));
  const size_t chunk = (count + (size_t{1} << global_steps) - 1) >> global_steps;
  RankPlan plan;
  size_t step_chunk = chunk << (global_steps - 1), base = 0;
  auto clip = [count](size_t at, size_t len) { return at < count ? std::min(len, count - at) : size_t{0}; };
  for (int bit = 1; bit < block.size; bit <<= 1) {
    Halving h;
    h.peer = rank ^ bit;
    h.send_count = clip(base + ((h.peer & bit) ? step_chunk : 0), step_chunk);
    h.keep_offset = base + ((rank & bit) ? step_chunk : 0);
    h.keep_count = clip(h.keep_offset, step_chunk);
    plan.steps.push_back(h);
    if (rank & bit) base += step_chunk;
    step_chunk >>= 1;
  }
  plan.chunk_after = step_chunk;
  plan.held = plan.steps.empty() ? count : plan.steps.back().keep_count;
  plan.held_offset = plan.steps.empty() ? 0 : plan.steps.back().keep_offset;
  return plan;
}

// The halving within the block (each step's payload and its notification) and the hand-up of what the rank holds
// to the next larger block, cut among the larger block's ranks that own those chunks (no notification).
void HalvingAndHandUp(int rank, const std::vector<Block>& blocks, size_t b, const RankPlan& plan,
                      std::vector<Transfer>* t) {
  for (const Halving& h : plan.steps) Payload(t, rank, h.peer, h.send_count), Notify(t, rank, h.peer);
  if (b == 0 || plan.held == 0) return;
  const Block& mine = blocks[b];
  const Block& larger = blocks[b - 1];
  const int pieces = larger.size / mine.size;
  const size_t piece = plan.chunk_after >> (Log2(static_cast<size_t>(pieces)) - 1);
  const int first = Reverse(rank - mine.offset, Log2(static_cast<size_t>(mine.size))) * pieces;
  for (int i = 0; i < pieces && piece * static_cast<size_t>(i) < plan.held; ++i) {
    const int to = larger.offset + Reverse(first + i, Log2(static_cast<size_t>(larger.size)));
    Payload(t, rank, to, std::min(piece, plan.held - piece * static_cast<size_t>(i)));
  }
}

size_t BlockOf(int rank, const std::vector<Block>& blocks) {
  size_t b = 0;
  while (rank >= blocks[b].offset + blocks[b].size) ++b;
  return b;
}

}  // namespace

void GlooHalvingDoublingAllreduce(size_t count, int n, std::vector<Transfer>* t) {
  const std::vector<Block> blocks = BinaryBlocks(n);
  for (int r = 0; r < n; ++r) {
    const size_t b = BlockOf(r, blocks);
    const RankPlan plan = Plan(r, blocks[b], count, n);
    HalvingAndHandUp(r, blocks, b, plan, t);
    if (b + 1 < blocks.size() && !plan.steps.empty()) {  // the result back down to the smaller block
      const Block& smaller = blocks[b + 1];
      Payload(t, r, smaller.offset + (r - blocks[b].offset) % smaller.size, plan.held);
    }
    for (auto h = plan.steps.rbegin(); h != plan.steps.rend(); ++h) {  // doubling: the kept half back
      Payload(t, r, h->peer, h->keep_count);
      Notify(t, r, h->peer);
    }
  }
}

void GlooHalvingDoublingReduceScatter(size_t count, int n, std::vector<Transfer>* t) {
  const std::vector<Block> blocks = BinaryBlocks(n);
  const size_t total = count * static_cast<size_t>(n);
  for (int r = 0; r < n; ++r) {
    const size_t b = BlockOf(r, blocks);
    const RankPlan plan = Plan(r, blocks[b], total, n);
    HalvingAndHandUp(r, blocks, b, plan, t);
    if (b != 0 || plan.steps.empty()) continue;
    // Distribution: the largest block's ranks send each rank its part of what they hold; the receiver answers
    // each piece with a notification.
    for (size_t at = plan.held_offset, end = plan.held_offset + plan.held; at < end;) {
      const int to = static_cast<int>(at / count);
      const size_t piece = std::min(end, static_cast<size_t>(to + 1) * count) - at;
      if (to != r) Payload(t, r, to, piece), Notify(t, to, r);
      at += piece;
    }
  }
}

}  // namespace traffic
}  // namespace commbench
