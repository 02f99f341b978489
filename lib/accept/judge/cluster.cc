// The cluster phase: every rank in one group. Per op and size: correctness, then the busbw floors (the best
// repeat) and the p50 and p99/p50 ceilings (the best repeat) of the whole.
#include <vector>

#include "lib/accept/judge/phases.h"

namespace commbench::accept::judge {
namespace {

void ClusterFigures(Judging& j, const std::string& what, Collective op, uint64_t bytes,
                    const std::vector<const result::PointResult*>& pts) {
  std::vector<double> busbw, p50, tail;
  for (const result::PointResult* pt : pts) {
    for (double b : RepeatBusbw(*pt)) busbw.push_back(b);
    for (double m : result::RepeatMedians(*pt)) p50.push_back(m);
    if (pt->time_us.p50 > 0) tail.push_back(pt->time_us.p99 / pt->time_us.p50);
  }
  for (const Floor& f : j.profile.floors) {
    if (f.bytes != bytes || !Applies(f.phase, f.op, Phase::kCluster, op)) continue;
    FloorCheck(j, what, "", f, op, Max(busbw), busbw.size());
  }
  for (const Ceiling& c : j.profile.ceilings) {
    if ((c.bytes && *c.bytes != bytes) || !Applies(c.phase, c.op, Phase::kCluster, op)) continue;
    CeilingChecks(j, what, "", c, Min(p50), p50.size(), Min(tail), tail.size());
  }
}

}  // namespace

void JudgeCluster(Judging& j, const Ran& ran) {
  for (Collective op : j.profile.ops) {
    for (uint64_t bytes : j.profile.sizes) {
      const std::vector<const result::PointResult*> pts = j.Points(ran, op, bytes);
      if (!CorrectnessCheck(j, Phase::kCluster, op, bytes, pts)) continue;
      ClusterFigures(j, What(Phase::kCluster, op, bytes), op, bytes, pts);
    }
  }
}

}  // namespace commbench::accept::judge
