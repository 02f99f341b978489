// Small-message latency, localised like bandwidth: at each op's smallest size (when the profile also runs a larger
// one), the host phase's hosts and the pairs phase's pairs by their median and their p99 against the typical host
// or pair; and the pairs by their p99 at the largest size too (a cap on for part of a point shows in its tail, not
// its median). A host slow at latency fails with every partner (a host suspect), a slow link with one partner only.
// A pair's figure goes to Localize as a speed (1 / time): the same maths that localises busbw. A link whose excess
// its ranks' extra wait for a CPU explains is a note, not a suspect (CpuWaitOf); where the typical pair's ranks
// wait for a CPU half its time or more, the pairs' latency is not judged at all (SchedulerBound).
#include <algorithm>
#include <cmath>

#include "lib/accept/judge/phases.h"
#include "lib/core/ranges.h"

namespace commbench::accept::judge {
namespace {

// A latency statistic of one group sample, and the share of the typical speed below which it fails.
struct Stat {
  const char* name;
  double (*of)(const GroupSample&);
  double fraction;
  Figure figure;  // what a re-test compares (judge/confirm.cc)
};

double P50(const GroupSample& s) { return s.p50_us; }
double P99(const GroupSample& s) { return s.p50_us * s.tail; }  // tail is p99 / p50

std::vector<Stat> Stats(const Profile& p) {
  return {{"median", P50, p.pairs.latency_fraction, Figure::kMedian},
          {"p99", P99, p.pairs.tail_fraction, Figure::kP99}};
}

// The smallest size of each op, when the profile runs a larger one (a single size is a bandwidth size).
bool LatencySize(const Profile& p, uint64_t* bytes) {
  if (p.sizes.size() < 2) return false;
  *bytes = p.sizes.front();
  return true;
}

std::string Where(const char* phase, Collective op, uint64_t bytes, const Stat& st) {
  return std::string(phase) + " latency (" + std::string(Name(op)) + " " + FormatBytes(bytes) + ", " + st.name + ")";
}

// Localize over the pairs at one op and size by one statistic: host and link suspects.
void PairsBy(Judging& j, Collective op, uint64_t bytes, const Stat& st,
             const std::map<Pair, std::vector<GroupSample>>& groups) {
  std::vector<PairResult> speeds;
  for (const auto& [pair, samples] : groups) {
    for (const GroupSample& s : samples) {
      const double t = st.of(s);
      if (std::isfinite(t) && t > 0) speeds.push_back({pair, 1 / t});
    }
  }
  LocalizeOptions lo;
  lo.fraction_of_typical = st.fraction;
  const Localization loc = Localize(static_cast<int>(j.hosts().size()), speeds, lo);
  if (loc.typical_gbps <= 0) return;
  const double typical = 1 / loc.typical_gbps, limit = 1 / loc.threshold_gbps;
  const auto& H = j.hosts();
  for (const Suspect& x : loc.suspects) {
    AcceptanceSuspect s;
    s.score = x.severity;
    s.found_by.push_back({st.figure, op, bytes, 1 / st.fraction});
    const double t = 1 / x.gbps;
    const std::string against = Us(t) + ", " + Num(t / typical) + "x a typical pair's " + Us(typical) +
                                " (a pair fails above " + Us(limit) + ")";
    if (x.kind == SuspectKind::kHost) {
      s.what = SuspectWhat::kHost;
      s.host = H[static_cast<size_t>(x.host)];
      s.evidence.push_back(Where("pairs phase", op, bytes, st) + ": slow with " + std::to_string(x.failed_with.size()) +
                           " of its " + std::to_string(loc.hosts[static_cast<size_t>(x.host)].partners) +
                           " partners, median over its pairs " + against);
    } else {
      const CpuWaitShare wait = CpuWaitOf(groups, x.link);
      if (wait.Explains(t - typical)) {
        j.report.notes.push_back(Where("pairs phase", op, bytes, st) + ": " +
                                 CpuWaitNote(H, x.link, "took " + against, wait));
        continue;
      }
      s.what = SuspectWhat::kLink;
      s.reason = ReasonKind::kLink;
      s.host = H[static_cast<size_t>(x.link.first)];
      s.peer = H[static_cast<size_t>(x.link.second)];
      s.evidence.push_back(Where("pairs phase", op, bytes, st) + ": the pair " + s.host + "-" + s.peer + " took " +
                           against + ", while each end was fast with its other partners");
    }
    j.AddSuspect(std::move(s));
  }
}

// The typical pair's median time, and whether its ranks' wait for a CPU is half of it or more: then the pairs'
// small-message times are the scheduler's (more ranks than cores, or other work on them), and one pair slower
// than the others says nothing about its link or its hosts.
bool SchedulerBound(Judging& j, Collective op, uint64_t bytes, const std::map<Pair, std::vector<GroupSample>>& groups) {
  std::vector<double> medians;
  for (const auto& [pair, samples] : groups) {
    const double m = MedianP50(samples);
    if (std::isfinite(m)) medians.push_back(m);
  }
  const double typical = Median(medians);
  const double wait = TypicalCpuWait(groups);
  if (!(typical > 0) || !std::isfinite(wait) || wait < 0.5 * typical) return false;
  j.report.notes.push_back("pairs phase latency (" + std::string(Name(op)) + " " + FormatBytes(bytes) +
                           "): not judged: a typical pair took " + Us(typical) + " per op, and its ranks waited " +
                           Us(wait) +
                           " per op for a CPU (runnable, on a run queue): at this size the pairs' times "
                           "are the scheduler's, not their links' or hosts'");
  return true;
}

}  // namespace

void PairLatencySuspects(Judging& j) {
  uint64_t bytes = 0;
  if (!LatencySize(j.profile, &bytes)) return;  // one size: a bandwidth profile, which judges no time
  for (Collective op : j.profile.ops) {
    const auto groups = j.PairGroups(op, bytes);
    if (groups.empty() || SchedulerBound(j, op, bytes, groups)) continue;
    for (const Stat& st : Stats(j.profile)) PairsBy(j, op, bytes, st, groups);
  }
  // The tail at the bandwidth size: a cap on for part of a 4 MiB point leaves its median, not its p99. Judged also
  // where the ranks mostly wait for a CPU (16 ranks on 2 cores: 80 of a typical pair's 129 ms per op): the
  // scheduler's waits are milliseconds against ops of a hundred, and a link whose excess they explain is a note.
  const uint64_t largest = j.profile.sizes.back();
  const Stat tail{"p99", P99, j.profile.pairs.bandwidth_tail_fraction, Figure::kP99};
  for (Collective op : j.profile.ops) {
    const auto groups = j.PairGroups(op, largest);
    if (!groups.empty()) PairsBy(j, op, largest, tail, groups);
  }
}

void HostLatencySuspects(Judging& j) {
  uint64_t bytes = 0;
  if (!LatencySize(j.profile, &bytes)) return;
  for (Collective op : j.profile.ops) {
    const auto groups = j.HostGroups(op, bytes);
    if (groups.size() < 3) continue;  // too few hosts to call one of them unlike the others
    for (const Stat& st : Stats(j.profile)) {
      std::map<std::string, double> best;
      std::vector<double> all;
      for (const auto& [host, samples] : groups) {
        std::vector<double> v;
        for (const GroupSample& s : samples) v.push_back(st.of(s));
        best[host] = Min(v);
        if (std::isfinite(best[host])) all.push_back(best[host]);
      }
      const double typical = Median(all);
      if (!(typical > 0)) continue;
      for (const auto& [host, t] : best) {
        if (!(t * st.fraction > typical)) continue;
        AcceptanceSuspect s;
        s.host = host;
        s.score = std::clamp(1 - typical / t, 0.0, 1.0);
        s.found_by.push_back({st.figure, op, bytes, 1 / st.fraction});
        s.evidence.push_back(Where("host phase", op, bytes, st) + ", its own ranks only: " + Us(t) + ", " +
                             Num(t / typical) + "x the typical host's " + Us(typical) + " (a host fails above " +
                             Us(typical / st.fraction) + ")");
        j.AddSuspect(std::move(s));
      }
    }
  }
}

}  // namespace commbench::accept::judge
