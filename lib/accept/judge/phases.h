// Each phase's judgement, one file each, and the table that lists them (registry.cc), as lib/diagnose lists its
// rules: the assembler (lib/accept/verdict.cc) runs pre-flight, then the judge of every phase the profile asks
// for that ran, then the judgements across phases (slow ranks, host verdicts).
#pragma once

#include <vector>

#include "lib/accept/judge/context.h"

namespace commbench::accept::judge {

// One phase's judge: what it checks, and the function that adds its checks and suspects to the judgement.
struct PhaseJudge {
  Phase phase;
  const char* file;         // its source under lib/accept/judge/
  const char* description;  // one line
  void (*judge)(Judging& j, const Ran& ran);
};

// Every phase's judge, in run order (AllPhases()).
const std::vector<PhaseJudge>& PhaseJudges();
const PhaseJudge* FindPhaseJudge(Phase phase);

// cluster.cc: correctness, busbw floors and p50 / p99/p50 ceilings of the whole cluster at each op and size.
void JudgeCluster(Judging& j, const Ran& ran);
// host.cc: correctness, floors and ceilings per host of its own ranks, and the hosts much slower than the others.
void JudgeHost(Judging& j, const Ran& ran);
// bisection.cc: correctness, block floors and ceilings, each host's blocks, Bisect's host suspects.
void JudgeBisection(Judging& j, const Ran& ran);
// pairs.cc: correctness, pair floors and ceilings, the pair matrix, each host's pair score, Localize's host and
// link suspects, and whether enough rounds ran.
void JudgePairs(Judging& j, const Ran& ran);

// latency.cc, called by the host and pairs judges: small-message latency (median and p99) against the typical
// host or pair, a host slow with every partner or a link slow with one.
void HostLatencySuspects(Judging& j);
void PairLatencySuspects(Judging& j);
// spells.cc, called by the pairs judge after the others: a host whose pair samples fail in some rounds, far more
// often than the other pairs', and pass in others (an intermittent suspect).
void PairSpellSuspects(Judging& j, const Ran& ran);

// Across phases.
// preflight.cc is verdict.h's PreflightChecks.
// ranks.cc: ranks much slower than their group peers over every phase that ran, with their arrival skew.
void RankSuspects(Judging& j);
// confirm.cc: each suspect's re-test beside a control pair: confirmed, intermittent, or left out with a note.
void ConfirmSuspects(Judging& j);
// hosts.cc: skew evidence for host suspects, suspects ranked and listed as checks, a host in no point, the
// verdict of each host and of the whole.
void HostVerdicts(Judging& j);

}  // namespace commbench::accept::judge
