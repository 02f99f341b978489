// Load from outside the ranks (docs/design.md §6): processes that are not part of the run took CPU time while points
// were measured (points[].host_load). The outside_load rule (rules.h) names them; NoteOutsideLoad keeps the
// other findings from attributing that time to the ranks.
#pragma once

#include <vector>

#include "lib/diagnose/analysis_input.h"
#include "lib/diagnose/rule.h"
#include "lib/result/host_load.h"

namespace commbench {
namespace diagnose {

// Outside processes took at least this much CPU time on the ranks' CPUs over a point's window (result::HostLoad).
inline constexpr double kMinOutsideCpus = result::kBusyOutsideCpus;

// True when processes outside the run took at least kMinOutsideCpus of the point's CPUs during it.
bool HasOutsideLoad(const AnalysisInput& in, const PointData& p);

// How much longer the slowest of `ranks` compute-bound threads takes on `cpus` CPUs when outside processes take
// `outside` CPUs of them than when they take none (pinned: one rank per CPU, in turn). A steady load slows a
// sweep's larger group counts more when its first leaves a CPU free: one busy process on 2 cores leaves one rank
// a core of its own, and makes one of two share.
double CrowdSlowdown(int ranks, double cpus, double outside, bool pinned);

// True when at point i of series s the outside load can slow the ranks enough more than at its first point
// (it rose, or it crowds point i's ranks more) to explain at least half of its growth there (on a log scale); or
// when the ranks, not outnumbering their cores, waited for a CPU (cpu.runqueue_wait_us_per_iter) longer per op
// than at the first point by at least half of that growth: other tasks held their cores, however briefly.
bool LoadExplainsGrowth(const AnalysisInput& in, const SeriesData& s, size_t i);

// Every finding (but outside_load's own) that rests on a point with outside load gets a note saying so; a
// confirmed one whose own series' growth the load can explain becomes suspected: its A/B compared times that
// another process shared unevenly. So does one whose A/B's B side grew by the load (that side lost the factor
// it varied), and a ruled-out one of that kind is a suspect again. Load about as large at every G, on ranks that
// fill the CPUs from the first point on, leaves it confirmed, with the note.
void NoteOutsideLoad(const AnalysisInput& in, std::vector<Finding>* findings);

// For a sweep in which nothing grows: the outside load on its points as one sentence ("another process, bash
// (pid 42), used 97% of CPU 0 during points G=1,4 (2 of the 2 points)"); "" when no point had any. Load that slows
// some group counts more than others can hide a growth as well as make one.
std::string OutsideLoadOnPoints(const AnalysisInput& in);

}  // namespace diagnose
}  // namespace commbench
