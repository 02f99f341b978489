#include "lib/backend/native/schedule.h"

#include <algorithm>
#include <map>

namespace commbench {
namespace native {
namespace {

// Balanced blocks aligned to 16 elements (a cache line of f32), so neighbouring ranks never write the same line.
size_t BlockStart(size_t count, int parts, int i) {
  size_t unit = (count + static_cast<size_t>(parts) - 1) / static_cast<size_t>(parts);
  unit = (unit + 15) / 16 * 16;
  return std::min(count, unit * static_cast<size_t>(i));
}

int Mod(int a, int n) { return ((a % n) + n) % n; }

Loc At(Loc base, size_t elements) {
  base.offset += elements;
  return base;
}

// Moves a source that is the destination itself to the front (the kernels' only permitted alias).
Pull MakePull(int self, Buf dst_buf, size_t dst_offset, size_t count, std::vector<Loc> srcs) {
  for (size_t i = 1; i < srcs.size(); ++i) {
    if (srcs[i].rank == self && srcs[i].buf == dst_buf && srcs[i].offset == dst_offset) {
      std::rotate(srcs.begin(), srcs.begin() + static_cast<long>(i), srcs.begin() + static_cast<long>(i) + 1);
      break;
    }
  }
  return Pull{dst_buf, dst_offset, count, std::move(srcs)};
}

void AddPull(Step* step, int self, Loc dst, size_t count, std::vector<Loc> srcs) {
  if (count == 0) return;
  if (srcs.size() == 1 && srcs[0].rank == self && srcs[0].buf == dst.buf && srcs[0].offset == dst.offset) return;
  step->pulls.push_back(MakePull(self, dst.buf, dst.offset, count, std::move(srcs)));
}

Schedule Empty(const Problem& p, size_t num_steps) {
  Schedule s;
  s.problem = p;
  s.sizes = BaseSizes(p);
  s.steps.assign(static_cast<size_t>(p.n), std::vector<Step>(num_steps));
  return s;
}

// One rank: the output is the input.
Schedule BuildSingle(const Problem& p) {
  Schedule s = Empty(p, 1);
  size_t total = p.op == Collective::kAllreduce ? p.count : p.count;  // n == 1: send == recv == count
  AddPull(&s.steps[0][0], 0, OutputLoc(p, 0), total, {InputLoc(p, 0)});
  return s;
}

// --- direct: one step, every rank reads every peer (allgather: its own block in a step before) ------------------

Schedule BuildDirect(const Problem& p) {
  const int n = p.n;
  if (p.op == Collective::kAllreduce && p.in_place) {
    // Peers must read inputs that nobody overwrites: stage the input in scratch first.
    Schedule s = Empty(p, 2);
    s.sizes.count[static_cast<int>(Buf::kScratch)] = p.count;
    for (int r = 0; r < n; ++r) {
      AddPull(&s.steps[r][0], r, Loc{r, Buf::kScratch, 0}, p.count, {InputLoc(p, r)});
      std::vector<Loc> srcs;
      for (int q = 0; q < n; ++q) srcs.push_back(Loc{q, Buf::kScratch, 0});  // same order on every rank
      AddPull(&s.steps[r][1], r, OutputLoc(p, r), p.count, srcs);
    }
    return s;
  }
  if (p.op == Collective::kAllgather) {
    // The own block in a step of its own, first: it needs no peer, so a rank copies it while a late peer is still
    // staging its input instead of waiting for that peer before copying anything (a step's waits come first).
    // In place the own block is already there (AddPull drops the copy) and step 0 stays empty.
    Schedule s = Empty(p, 2);
    for (int r = 0; r < n; ++r) {
      AddPull(&s.steps[r][0], r, At(OutputLoc(p, r), r * p.count), p.count, {InputLoc(p, r)});
      for (int q = 0; q < n; ++q) {
        if (q != r) AddPull(&s.steps[r][1], r, At(OutputLoc(p, r), q * p.count), p.count, {InputLoc(p, q)});
      }
    }
    return s;
  }
  Schedule s = Empty(p, 1);
  for (int r = 0; r < n; ++r) {
    Step* step = &s.steps[r][0];
    switch (p.op) {
      case Collective::kAllreduce: {
        std::vector<Loc> srcs;
        for (int q = 0; q < n; ++q) srcs.push_back(InputLoc(p, q));
        AddPull(step, r, OutputLoc(p, r), p.count, srcs);
        break;
      }
      case Collective::kAllgather:
        break;  // above
      case Collective::kReduceScatter: {
        std::vector<Loc> srcs;
        for (int q = 0; q < n; ++q) srcs.push_back(At(InputLoc(p, q), r * p.count));
        AddPull(step, r, OutputLoc(p, r), p.count, srcs);
        break;
      }
    }
  }
  return s;
}

// --- twoshot: direct reduce-scatter, then direct allgather (allreduce), pipelined over p.chunks chunks ---------

// Step c reduces every rank's block of chunk c and copies the peers' blocks of chunk c-1 (k chunks, k+1 steps).
// Chunks and blocks start on 16-element boundaries (BlockStart), so ranks never write the same cache line.
Schedule BuildTwoShot(const Problem& p) {
  const int n = p.n;
  const int k = static_cast<int>(std::max<size_t>(
      1, std::min<size_t>(static_cast<size_t>(std::max(p.chunks, 1)), p.count / 16 / static_cast<size_t>(n))));
  Schedule s = Empty(p, static_cast<size_t>(k) + 1);
  for (int c = 0; c < k; ++c) {
    const size_t clo = BlockStart(p.count, k, c), len = BlockStart(p.count, k, c + 1) - clo;
    auto block = [&](int q, size_t* lo, size_t* hi) {
      *lo = clo + BlockStart(len, n, q);
      *hi = clo + BlockStart(len, n, q + 1);
    };
    for (int r = 0; r < n; ++r) {
      size_t lo, hi;
      block(r, &lo, &hi);
      std::vector<Loc> srcs;
      for (int q = 0; q < n; ++q) srcs.push_back(At(InputLoc(p, q), lo));
      AddPull(&s.steps[r][static_cast<size_t>(c)], r, At(OutputLoc(p, r), lo), hi - lo, srcs);
      for (int q = 0; q < n; ++q) {
        if (q == r) continue;
        size_t qlo, qhi;
        block(q, &qlo, &qhi);
        AddPull(&s.steps[r][static_cast<size_t>(c) + 1], r, At(OutputLoc(p, r), qlo), qhi - qlo,
                {At(OutputLoc(p, q), qlo)});
      }
    }
  }
  return s;
}

// --- ring: n-1 reduce-scatter steps from the left neighbour, n-1 allgather steps -------------------------------

Schedule BuildRing(const Problem& p) {
  const int n = p.n;
  const bool rs = p.op != Collective::kAllgather;
  const bool ag = p.op != Collective::kReduceScatter;
  Schedule s = Empty(p, static_cast<size_t>((rs ? n - 1 : 0) + (ag ? n - 1 : 0)));
  // Blocks: balanced over the vector for allreduce; the ranks' blocks for the other two.
  auto block = [&](int b, size_t* lo, size_t* hi) {
    if (p.op == Collective::kAllreduce) {
      *lo = BlockStart(p.count, n, b);
      *hi = BlockStart(p.count, n, b + 1);
    } else {
      *lo = static_cast<size_t>(b) * p.count;
      *hi = *lo + p.count;
    }
  };
  // Where reduce-scatter partials live: the output for allreduce and in-place reduce-scatter; scratch otherwise.
  const bool scratch = p.op == Collective::kReduceScatter && !p.in_place;
  if (scratch) s.sizes.count[static_cast<int>(Buf::kScratch)] = p.count * static_cast<size_t>(n);
  auto partial = [&](int rank) { return scratch ? Loc{rank, Buf::kScratch, 0} : Loc{rank, Buf::kOut, 0}; };
  auto full_out = [&](int rank) {
    return p.op == Collective::kAllreduce ? OutputLoc(p, rank) : Loc{rank, Buf::kOut, 0};
  };

  for (int r = 0; r < n; ++r) {
    const int left = Mod(r - 1, n);
    size_t t = 0;
    if (rs) {
      for (int st = 0; st < n - 1; ++st, ++t) {
        int b = Mod(r - st - 2, n);
        size_t lo, hi;
        block(b, &lo, &hi);
        Loc theirs = st == 0 ? At(InputLoc(p, left), lo) : At(partial(left), lo);
        Loc dst = At(partial(r), lo);
        if (st == n - 2) dst = p.op == Collective::kAllreduce ? At(OutputLoc(p, r), lo) : OutputLoc(p, r);
        AddPull(&s.steps[r][t], r, dst, hi - lo, {At(InputLoc(p, r), lo), theirs});
      }
    }
    if (ag) {
      for (int st = 0; st < n - 1; ++st, ++t) {
        int b = Mod(r - st - 1, n);
        size_t lo, hi;
        block(b, &lo, &hi);
        Loc theirs;
        if (st == 0 && !rs) {
          theirs = InputLoc(p, left);  // the left neighbour's own block is still its input
          size_t mlo, mhi;
          block(r, &mlo, &mhi);
          AddPull(&s.steps[r][t], r, At(full_out(r), mlo), mhi - mlo, {InputLoc(p, r)});
        } else {
          theirs = At(full_out(left), lo);
        }
        AddPull(&s.steps[r][t], r, At(full_out(r), lo), hi - lo, {theirs});
      }
    }
  }
  return s;
}

// --- hd: recursive halving (reduce-scatter) and doubling (allgather) over the largest power of two; the first
// 2*rem ranks fold pairwise into their odd member before and unfold after (Rabenseifner / Thakur et al.) --------

// The shape every rank's hd schedule shares: p2 participants (the largest power of two <= n), log2 exchange steps
// each way, and rem folded pairs. A participant has a new rank 0..p2-1; region j is new rank j's part of the vector.
struct HdLayout {
  explicit HdLayout(const Problem& problem) : p(problem), n(problem.n), op(problem.op) {
    while (p2 * 2 <= n) p2 *= 2;
    rem = n - p2;
    while ((1 << log2) < p2) ++log2;
    rs = op != Collective::kAllgather;
    ag = op != Collective::kReduceScatter;
    total = op == Collective::kAllreduce ? p.count : p.count * static_cast<size_t>(n);
    scratch = op == Collective::kReduceScatter && !p.in_place;
  }

  // Fold pre-step, halving steps plus copy-out, doubling steps, unfold post-step.
  size_t NumSteps() const { return 1 /*pre*/ + (rs ? log2 + 1 : 0) + (ag ? log2 : 0) + 1 /*post*/; }

  // -1 for the even members of the folded pairs, which sit out the exchanges.
  int NewRank(int r) const { return r < 2 * rem ? (r % 2 == 1 ? r / 2 : -1) : r - rem; }
  int RealRank(int nr) const { return nr < rem ? 2 * nr + 1 : nr + rem; }

  // Region j's element range: balanced for allreduce, the member ranks' blocks otherwise.
  size_t RegionStart(int j) const {
    if (op == Collective::kAllreduce) return BlockStart(p.count, p2, j);
    int first_rank = j < rem ? 2 * j : j + rem;
    if (j == p2) first_rank = n;
    return static_cast<size_t>(first_rank) * p.count;
  }

  // The working buffer holding reduce-scatter partials / allgather results (whole vector, rank-major).
  Loc Work(int rank) const {
    if (scratch) return Loc{rank, Buf::kScratch, 0};
    if (op == Collective::kAllreduce) return OutputLoc(p, rank);
    return Loc{rank, Buf::kOut, 0};
  }

  // Where a participant's current partial is: its input until it first reduces (for reduce-scatter too: the input
  // is the whole vector).
  Loc Current(int rank, bool reduced) const { return reduced ? Work(rank) : InputLoc(p, rank); }

  Problem p;
  int n;
  Collective op;
  int p2 = 1;
  int rem = 0;
  int log2 = 0;
  bool rs = false;       // has a reduce-scatter phase (halving)
  bool ag = false;       // has an allgather phase (doubling)
  size_t total = 0;      // elements in the whole vector
  bool scratch = false;  // Work() is scratch (out-of-place reduce-scatter)
};

// Pre-step: odd members of the first 2*rem ranks take their even neighbour's data (reduced into their working
// buffer, or copied as its block for allgather); allgather participants also place their own block. Returns
// whether rank r's partial is now in its working buffer.
bool AddHdFold(const HdLayout& h, int r, Step* step) {
  bool reduced = false;
  if (r < 2 * h.rem && r % 2 == 1) {
    if (h.rs) {
      AddPull(step, r, h.Work(r), h.total, {h.Current(r, false), InputLoc(h.p, r - 1)});
      reduced = true;
    } else {
      AddPull(step, r, At(h.Work(r), static_cast<size_t>(r - 1) * h.p.count), h.p.count, {InputLoc(h.p, r - 1)});
    }
  }
  if (h.ag && !h.rs && h.NewRank(r) >= 0) {
    AddPull(step, r, At(h.Work(r), static_cast<size_t>(r) * h.p.count), h.p.count, {InputLoc(h.p, r)});
  }
  return reduced;
}

// Recursive halving over steps[0..log2): each step a participant keeps the half of its region range holding its
// own new rank and reduces it with the partner's partial of that half. Then steps[log2] copies the result to its
// final place (reduce-scatter, or allreduce on a participant that never reduced).
void AddHdHalving(const HdLayout& h, int r, bool reduced, Step* steps) {
  const int nr = h.NewRank(r);
  if (nr < 0) return;
  int lo = 0, hi = h.p2;  // region range this participant still reduces
  for (int k = 0; k < h.log2; ++k) {
    int d = h.p2 >> (k + 1);
    int partner = h.RealRank(nr ^ d);
    bool partner_reduced = k > 0 || (partner < 2 * h.rem);
    if ((nr & d) == 0) {
      hi = lo + d;
    } else {
      lo = lo + d;
    }
    size_t a = h.RegionStart(lo), b = h.RegionStart(hi);
    AddPull(&steps[k], r, At(h.Work(r), a), b - a,
            {At(h.Current(r, reduced), a), At(h.Current(partner, partner_reduced), a)});
    reduced = true;
  }
  Step* copy_out = &steps[h.log2];
  if (h.op == Collective::kReduceScatter) {
    size_t own = static_cast<size_t>(r) * h.p.count;
    AddPull(copy_out, r, OutputLoc(h.p, r), h.p.count, {At(h.Current(r, reduced), own)});
  } else if (!reduced) {
    AddPull(copy_out, r, OutputLoc(h.p, r), h.total, {InputLoc(h.p, r)});
  }
}

// Recursive doubling over steps[0..log2): each step a participant copies the partner's regions, doubling what it
// holds, smallest distance last.
void AddHdDoubling(const HdLayout& h, int r, Step* steps) {
  const int nr = h.NewRank(r);
  if (nr < 0) return;
  for (int i = 0; i < h.log2; ++i) {
    int k = h.log2 - 1 - i;
    int d = h.p2 >> (k + 1);
    int partner_nr = nr ^ d;
    int partner = h.RealRank(partner_nr);
    int plo = partner_nr & ~(d - 1);
    size_t a = h.RegionStart(plo), b = h.RegionStart(plo + d);
    AddPull(&steps[i], r, At(h.Work(r), a), b - a, {At(h.Work(partner), a)});
  }
}

// Post-step: the even members of the folded pairs take the result from their odd neighbour.
void AddHdUnfold(const HdLayout& h, int r, Step* step) {
  if (r >= 2 * h.rem || r % 2 != 0) return;
  if (h.op == Collective::kReduceScatter) {
    AddPull(step, r, OutputLoc(h.p, r), h.p.count, {At(h.Work(r + 1), static_cast<size_t>(r) * h.p.count)});
  } else {
    AddPull(step, r, h.Work(r), h.total, {h.Work(r + 1)});
  }
}

Schedule BuildHalvingDoubling(const Problem& p) {
  const HdLayout h(p);
  Schedule s = Empty(p, h.NumSteps());
  if (h.scratch) s.sizes.count[static_cast<int>(Buf::kScratch)] = h.total;
  for (int r = 0; r < p.n; ++r) {
    Step* step = s.steps[r].data();
    const bool reduced = AddHdFold(h, r, step);
    step += 1;
    if (h.rs) {
      AddHdHalving(h, r, reduced, step);
      step += h.log2 + 1;
    }
    if (h.ag) {
      AddHdDoubling(h, r, step);
      step += h.log2;
    }
    AddHdUnfold(h, r, step);
  }
  return s;
}

bool Overlaps(const Loc& a, size_t na, const Loc& b, size_t nb) {
  return a.rank == b.rank && a.buf == b.buf && na > 0 && nb > 0 && a.offset < b.offset + nb && b.offset < a.offset + na;
}

}  // namespace

Loc InputLoc(const Problem& p, int rank) {
  if (!p.in_place) return Loc{rank, Buf::kIn, 0};
  if (p.op == Collective::kAllgather) return Loc{rank, Buf::kOut, static_cast<size_t>(rank) * p.count};
  return Loc{rank, Buf::kOut, 0};
}

Loc OutputLoc(const Problem& p, int rank) {
  if (p.in_place && p.op == Collective::kReduceScatter) {
    return Loc{rank, Buf::kOut, static_cast<size_t>(rank) * p.count};
  }
  return Loc{rank, Buf::kOut, 0};
}

BufferSizes BaseSizes(const Problem& p) {
  BufferSizes s;
  size_t send = p.op == Collective::kReduceScatter ? p.count * static_cast<size_t>(p.n) : p.count;
  size_t recv = p.op == Collective::kAllgather ? p.count * static_cast<size_t>(p.n) : p.count;
  if (p.in_place) {
    s.count[static_cast<int>(Buf::kOut)] = std::max(send, recv);
  } else {
    s.count[static_cast<int>(Buf::kIn)] = send;
    s.count[static_cast<int>(Buf::kOut)] = recv;
  }
  return s;
}

const std::vector<AlgorithmDesc>& AlgorithmTable() {
  using C = Collective;
  static const auto* table = new std::vector<AlgorithmDesc>{
      {"direct", C::kAllreduce, "one step: every rank reduces all n inputs itself (one-shot)", "< 16 KiB"},
      {"direct", C::kAllgather, "its own block, then every peer's block in one step",
       "all sizes on shm; < 4 KiB on tcp"},
      {"direct", C::kReduceScatter, "one step: every rank reduces its own block from all n inputs",
       "all sizes on shm; < 4 KiB on tcp"},
      {"twoshot", C::kAllreduce, "direct reduce-scatter (one block per rank), then direct allgather of the blocks",
       ">= 16 KiB on shm"},
      {"ring", C::kAllreduce, "n-1 reduce-scatter then n-1 allgather steps, each from the left neighbour only",
       "large messages on tcp, many ranks"},
      {"ring", C::kAllgather, "n-1 steps, each copying the block the left neighbour received last",
       "large messages on tcp"},
      {"ring", C::kReduceScatter, "n-1 steps, each adding the left neighbour's partial block", "large messages on tcp"},
      {"hd", C::kAllreduce,
       "recursive halving reduce-scatter then doubling allgather; non-powers of two fold pairwise first",
       "4 KiB .. 256 KiB on tcp"},
      {"hd", C::kAllgather, "recursive doubling over log2(n) steps; non-powers of two fold pairwise first",
       "medium messages, many ranks"},
      {"hd", C::kReduceScatter, "recursive halving over log2(n) steps; non-powers of two fold pairwise first",
       "medium messages, many ranks"},
  };
  return *table;
}

bool Supports(const std::string& algo, Collective op) {
  for (const auto& a : AlgorithmTable()) {
    if (a.name == algo && a.op == op) return true;
  }
  return false;
}

StatusOr<Schedule> BuildSchedule(const std::string& algo, const Problem& problem) {
  if (problem.n < 1) return InvalidArgument("native: rank count must be >= 1");
  if (!Supports(algo, problem.op)) {
    std::string accepted;
    for (const auto& a : AlgorithmTable()) {
      if (a.op == problem.op) accepted += (accepted.empty() ? "" : ", ") + a.name;
    }
    return InvalidArgument("native: algorithm '" + algo + "' does not run " + std::string(Name(problem.op)) +
                           " (accepted: auto, " + accepted + ")");
  }
  if (problem.n == 1) return BuildSingle(problem);
  if (algo == "direct") return BuildDirect(problem);
  if (algo == "twoshot") return BuildTwoShot(problem);
  if (algo == "ring") return BuildRing(problem);
  return BuildHalvingDoubling(problem);
}

WaitPlan MakeWaitPlan(const Schedule& s, int rank) {
  WaitPlan plan;
  const size_t steps = s.num_steps();
  plan.before_step.resize(steps);
  std::map<int, uint32_t> already;  // strongest wait issued so far per peer
  std::vector<bool> reader(static_cast<size_t>(s.problem.n), false);
  for (size_t t = 0; t < steps; ++t) {
    std::map<int, uint32_t> need;
    // Read-after-write: the step in which the owner last wrote what we read (0 = its input, set before start).
    for (const Pull& pull : s.steps[rank][t].pulls) {
      for (const Loc& src : pull.srcs) {
        if (src.rank == rank) continue;
        uint32_t done = 0;
        for (size_t w = 0; w < t; ++w) {
          for (const Pull& theirs : s.steps[src.rank][w].pulls) {
            if (Overlaps(Loc{src.rank, theirs.dst_buf, theirs.dst_offset}, theirs.count, src, pull.count)) {
              done = static_cast<uint32_t>(w + 1);
            }
          }
        }
        need[src.rank] = std::max(need[src.rank], done);
      }
    }
    // Write-after-read: peers that read what we now overwrite, in earlier steps, must be past those steps.
    for (const Pull& pull : s.steps[rank][t].pulls) {
      Loc dst{rank, pull.dst_buf, pull.dst_offset};
      for (int q = 0; q < s.problem.n; ++q) {
        if (q == rank) continue;
        for (size_t w = 0; w < t; ++w) {
          for (const Pull& theirs : s.steps[q][w].pulls) {
            for (const Loc& src : theirs.srcs) {
              if (Overlaps(src, theirs.count, dst, pull.count))
                need[q] = std::max(need[q], static_cast<uint32_t>(w + 1));
            }
          }
        }
      }
    }
    for (const auto& [peer, done] : need) {
      auto it = already.find(peer);
      if (it != already.end() && it->second >= done) continue;
      already[peer] = done;
      plan.before_step[t].push_back(PeerWait{peer, done});
    }
  }
  for (int q = 0; q < s.problem.n; ++q) {
    if (q == rank) continue;
    for (const auto& step : s.steps[q]) {
      for (const Pull& pull : step.pulls) {
        for (const Loc& src : pull.srcs) {
          if (src.rank == rank) reader[static_cast<size_t>(q)] = true;
        }
      }
    }
    if (reader[static_cast<size_t>(q)]) plan.readers.push_back(q);
  }
  return plan;
}

namespace {

// How many ranks (peers or `rank` itself) read the destination of `rank`'s pull i of step t in a later step of the op.
int LaterReaders(const Schedule& s, int rank, size_t t, size_t i) {
  const Pull& pull = s.steps[rank][t].pulls[i];
  const Loc dst{rank, pull.dst_buf, pull.dst_offset};
  int readers = 0;
  for (int q = 0; q < s.problem.n; ++q) {
    bool reads = false;
    for (size_t w = t + 1; w < s.num_steps() && !reads; ++w) {
      for (const Pull& theirs : s.steps[q][w].pulls) {
        for (const Loc& src : theirs.srcs) reads = reads || Overlaps(src, theirs.count, dst, pull.count);
      }
    }
    readers += reads ? 1 : 0;
  }
  return readers;
}

}  // namespace

std::vector<std::vector<bool>> FinalPulls(const Schedule& s, int rank) {
  std::vector<std::vector<bool>> final_pulls(s.num_steps());
  for (size_t t = 0; t < s.num_steps(); ++t) {
    for (size_t i = 0; i < s.steps[rank][t].pulls.size(); ++i) {
      final_pulls[t].push_back(LaterReaders(s, rank, t, i) == 0);
    }
  }
  return final_pulls;
}

std::vector<std::vector<bool>> StreamedPulls(const Schedule& s, int rank, size_t element_bytes) {
  size_t rank_elements = 0;
  for (size_t count : s.sizes.count) rank_elements += count;
  const size_t working_set = rank_elements * element_bytes * static_cast<size_t>(s.problem.n);
  std::vector<std::vector<bool>> streamed(s.num_steps());
  for (size_t t = 0; t < s.num_steps(); ++t) {
    for (size_t i = 0; i < s.steps[rank][t].pulls.size(); ++i) {
      const int readers = working_set < kStreamFinalPullsFrom ? -1 : LaterReaders(s, rank, t, i);
      streamed[t].push_back(readers == 0 ||
                            (working_set >= kStreamEveryPullFrom && readers > 0 && readers <= kStreamReadByAtMost));
    }
  }
  return streamed;
}

bool WritesInput(const Schedule& s) {
  if (s.problem.in_place) return true;
  for (const auto& steps : s.steps) {
    for (const Step& step : steps) {
      for (const Pull& pull : step.pulls) {
        if (pull.dst_buf == Buf::kIn && pull.count > 0) return true;
      }
    }
  }
  return false;
}

Status Validate(const Schedule& s) {
  const int n = s.problem.n;
  auto where = [&](int r, size_t t) { return "rank " + std::to_string(r) + " step " + std::to_string(t); };
  for (int r = 0; r < n; ++r) {
    if (s.steps[r].size() != s.num_steps()) return Internal(where(r, 0) + ": uneven step count");
    for (size_t t = 0; t < s.steps[r].size(); ++t) {
      for (const Pull& pull : s.steps[r][t].pulls) {
        if (pull.srcs.empty()) return Internal(where(r, t) + ": pull without sources");
        if (pull.dst_offset + pull.count > s.sizes.count[static_cast<int>(pull.dst_buf)]) {
          return Internal(where(r, t) + ": destination out of bounds");
        }
        Loc dst{r, pull.dst_buf, pull.dst_offset};
        for (size_t i = 0; i < pull.srcs.size(); ++i) {
          const Loc& src = pull.srcs[i];
          if (src.rank < 0 || src.rank >= n) return Internal(where(r, t) + ": source rank out of range");
          if (src.offset + pull.count > s.sizes.count[static_cast<int>(src.buf)]) {
            return Internal(where(r, t) + ": source out of bounds");
          }
          bool same = src.rank == r && src.buf == dst.buf && src.offset == dst.offset;
          if (Overlaps(src, pull.count, dst, pull.count) && !(same && i == 0)) {
            return Internal(where(r, t) + ": source " + std::to_string(i) + " overlaps the destination");
          }
        }
        // Nobody may read, in the same step, what this pull writes.
        for (int q = 0; q < n; ++q) {
          if (q == r) continue;
          for (const Pull& theirs : s.steps[q][t].pulls) {
            for (const Loc& src : theirs.srcs) {
              if (Overlaps(src, theirs.count, dst, pull.count)) {
                return Internal(where(r, t) + " writes what rank " + std::to_string(q) + " reads in the same step");
              }
            }
          }
        }
      }
    }
  }
  return OkStatus();
}

}  // namespace native
}  // namespace commbench
