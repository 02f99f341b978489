#include "lib/gate/disturbance.h"

#include <algorithm>
#include <cstdio>

#include "lib/core/axes.h"
#include "lib/core/ranges.h"

namespace commbench::gate {
namespace {

std::vector<int> RankCpus(const result::PointResult& p, const std::string& affinity) {
  auto cpus = ParseCpuList(p.point.cpus.empty() ? affinity : p.point.cpus, "cpus");
  return cpus.ok() ? *cpus : std::vector<int>{};
}

// Outside CPU seconds on the ranks' CPUs over the window (per_cpu outside_s holds the unattributed share of
// short-lived processes too), bounded by what /proc/stat says those CPUs were busy
// beyond the ranks' own rusage (per-process time is put on the CPU it was last seen on, which can overstate one);
// the share of those CPUs' time.
double OutsideShare(const result::PointResult& p, const std::string& affinity) {
  if (!p.host_load || p.host_load->window_s <= 0) return 0;
  const result::HostLoad& h = *p.host_load;
  const std::vector<int> cpus = RankCpus(p, affinity);
  double outside = 0, busy = 0;
  int counted = 0;
  for (const result::CpuLoad& c : h.per_cpu) {
    if (!cpus.empty() && std::find(cpus.begin(), cpus.end(), c.cpu) == cpus.end()) continue;
    outside += c.outside_s;
    busy += c.busy_s;
    ++counted;
  }
  if (counted == 0) {
    outside = h.outside_cpu_s;
    busy = h.outside_cpu_s + h.ranks_cpu_s;
    counted = std::max(1, p.cpu.cores_available);
  }
  outside = std::max(0.0, std::min(outside, busy - h.ranks_cpu_s));
  return outside / (h.window_s * counted);
}

// The first pinned rank that moved between CPUs anyway, as a reason; "" when none did. Pinned: the point's --pin
// placed each process on one CPU, or the rank's affinity (read after its loop) is one CPU.
std::string PinnedRankMoved(const result::PointResult& p) {
  for (const result::RankTime& r : p.per_rank) {
    if (r.migrations <= 0) continue;
    const auto cpus = ParseCpuList(r.affinity, "affinity");
    const bool one_cpu = cpus.ok() && cpus->size() == 1;
    if (!one_cpu && p.point.pin == Pin::kNone) continue;
    const std::string where = one_cpu ? "pinned to CPU " + std::to_string(cpus->front())
                                      : "pinned (--pin " + std::string(Name(p.point.pin)) + "; allowed CPUs " +
                                            r.affinity + " after its loop)";
    return "rank " + std::to_string(r.rank) + ", " + where + ", moved between CPUs " + std::to_string(r.migrations) +
           (r.migrations == 1 ? " time" : " times") + " (its affinity or its CPU changed while it ran)";
  }
  return "";
}

}  // namespace

Disturbance JudgeRepeat(const result::PointResult& repeat, const std::string& affinity, const DisturbanceRule& rule) {
  Disturbance d;
  d.outside_share = OutsideShare(repeat, affinity);
  const double p50 = repeat.time_us.p50;
  if (repeat.cpu.runqueue_wait_us_per_iter >= 0 && p50 > 0)
    d.runqueue_share = repeat.cpu.runqueue_wait_us_per_iter / p50;
  char buf[200];
  if (d.outside_share >= rule.outside_share) {
    std::string who;
    if (repeat.host_load && repeat.host_load->unattributed_cpu_s >
                                (repeat.host_load->top.empty() ? 0 : repeat.host_load->top.front().cpu_s)) {
      who = " (mostly short-lived processes no sample could name)";
    } else if (repeat.host_load && !repeat.host_load->top.empty()) {
      const result::OutsideProcess& top = repeat.host_load->top.front();
      who = " (the largest: " + top.comm + ", pid " + std::to_string(top.pid) + ")";
    }
    std::snprintf(buf, sizeof(buf), "outside processes took %.0f%% of the ranks' CPUs", 100 * d.outside_share);
    d.why = buf + who;
  }
  if (d.runqueue_share >= rule.runqueue_share && d.outside_share >= rule.runqueue_witness) {
    std::snprintf(buf, sizeof(buf), "the ranks waited for a CPU %.0f%% of an operation's time", 100 * d.runqueue_share);
    d.why += (d.why.empty() ? "" : "; ") + std::string(buf);
  }
  d.migrations = repeat.cpu.migrations;
  if (const std::string moved = PinnedRankMoved(repeat); !moved.empty()) d.why += (d.why.empty() ? "" : "; ") + moved;
  d.disturbed = !d.why.empty();
  return d;
}

}  // namespace commbench::gate
