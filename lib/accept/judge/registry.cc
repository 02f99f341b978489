#include "lib/accept/judge/phases.h"

namespace commbench::accept::judge {

const std::vector<PhaseJudge>& PhaseJudges() {
  static const auto* judges = new std::vector<PhaseJudge>{
      {Phase::kCluster, "cluster.cc", "every rank in one group: correctness, busbw floors, p50 and p99/p50 ceilings",
       JudgeCluster},
      {Phase::kHost, "host.cc", "each host's own ranks: its floors and ceilings, a host much slower than the others",
       JudgeHost},
      {Phase::kBisection, "bisection.cc",
       "blocks of the host list: block floors and ceilings, each host's blocks, the host no passing block cleared",
       JudgeBisection},
      {Phase::kPairs, "pairs.cc",
       "host pairs in re-pairing rounds: pair floors and ceilings, each host's pair score, slow hosts and links",
       JudgePairs},
  };
  return *judges;
}

const PhaseJudge* FindPhaseJudge(Phase phase) {
  for (const PhaseJudge& p : PhaseJudges()) {
    if (p.phase == phase) return &p;
  }
  return nullptr;
}

}  // namespace commbench::accept::judge
