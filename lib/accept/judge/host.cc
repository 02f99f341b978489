// The host phase: one group per host, its own ranks. Per host, op and size: its floors and ceilings (a host with
// no point of its own fails closed); at the first op's largest size, the hosts much slower than the typical host.
#include <algorithm>
#include <cmath>

#include "lib/accept/judge/phases.h"
#include "lib/core/ranges.h"

namespace commbench::accept::judge {
namespace {

// One host's floors and ceilings at one op and size, from its group's samples.
void HostChecks(Judging& j, const std::string& what, const std::string& host, Collective op, uint64_t bytes,
                const std::vector<GroupSample>& samples, bool single) {
  std::vector<double> busbw, p50, tail;
  for (const GroupSample& s : samples) {
    busbw.push_back(s.busbw);
    p50.push_back(s.p50_us);
    tail.push_back(s.tail);
  }
  for (const Floor& f : j.profile.floors) {
    if (single || f.bytes != bytes || !Applies(f.phase, f.op, Phase::kHost, op)) continue;
    FloorCheck(j, what, host, f, op, Max(busbw), busbw.size());
  }
  for (const Ceiling& c : j.profile.ceilings) {
    if ((c.bytes && *c.bytes != bytes) || !Applies(c.phase, c.op, Phase::kHost, op)) continue;
    CeilingChecks(j, what, host, c, Min(p50), p50.size(), Min(tail), tail.size());
  }
}

// The evidence of a slow host: its median against the typical host's, its busbw against theirs and the floors.
std::string HostEvidence(const Judging& j, Collective op, uint64_t bytes, double p50, double typical, double busbw,
                         double typical_gbps) {
  std::string e = "host phase (" + std::string(Name(op)) + " " + FormatBytes(bytes) + ", its own ranks only): median " +
                  Us(p50) + ", " + Num(p50 / typical) + "x the typical host's " + Us(typical);
  if (!std::isfinite(busbw)) return e;
  e += "; busbw " + Gbps(busbw) + " against the typical host's " + Gbps(typical_gbps);
  for (const Floor& f : j.profile.floors) {
    if (f.bytes != bytes || !Applies(f.phase, f.op, Phase::kHost, op)) continue;
    Limit l = FloorLimit(f, op, j.peaks);
    if (std::isfinite(l.value)) e += " and the floor " + Gbps(l.value) + " (" + l.what + ")";
  }
  return e;
}

// A host whose own ranks take much longer than the typical host's at the largest size.
void HostSuspects(Judging& j, const std::map<std::string, std::vector<GroupSample>>& groups, Collective op,
                  uint64_t bytes) {
  std::map<std::string, double> best_p50, best_busbw, wait;
  std::vector<double> all, waits;
  for (const auto& [host, samples] : groups) {
    wait[host] = MedianCpuWait(samples);
    if (std::isfinite(wait[host])) waits.push_back(wait[host]);
    std::vector<double> p50, busbw;
    for (const GroupSample& s : samples) {
      p50.push_back(s.p50_us);
      busbw.push_back(s.busbw);
    }
    best_p50[host] = Min(p50);
    best_busbw[host] = Max(busbw);
    all.push_back(best_p50[host]);
    j.host_busbw[host] = best_busbw[host];
  }
  if (all.size() < 3) return;  // too few hosts to call one of them unlike the others
  const double typical = Median(all);
  std::vector<double> typical_busbw;
  for (const auto& [host, b] : best_busbw) typical_busbw.push_back(b);
  const double typical_gbps = Median(typical_busbw);
  const double typical_wait = Median(waits);
  for (const auto& [host, p50] : best_p50) {
    if (!(p50 * j.profile.pairs.pair_fraction > typical)) continue;
    AcceptanceSuspect s;
    s.what = SuspectWhat::kHost;
    s.host = host;
    s.score = std::clamp(1 - typical / p50, 0.0, 1.0);
    s.found_by.push_back({Figure::kBandwidth, op, bytes, 1 / j.profile.pairs.pair_fraction});
    s.evidence.push_back(HostEvidence(j, op, bytes, p50, typical, best_busbw[host], typical_gbps));
    const std::string cpu = CpuWaitEvidence("its ranks", wait[host], "the typical host's", typical_wait, p50 - typical);
    if (!cpu.empty()) s.evidence.push_back(cpu);
    j.AddSuspect(std::move(s));
  }
}

}  // namespace

void JudgeHost(Judging& j, const Ran& ran) {
  CorrectnessChecks(j, Phase::kHost, ran);
  bool noted_single = false;
  for (Collective op : j.profile.ops) {
    for (uint64_t bytes : j.profile.sizes) {
      const std::string what = What(Phase::kHost, op, bytes);
      const auto groups = j.HostGroups(op, bytes);
      for (const std::string& host : j.hosts()) {
        auto it = groups.find(host);
        if (it == groups.end()) {
          j.Add(what, host, false, kNaN, kNaN, "", host + ": no point of its own ranks at " + what + " (fails closed)",
                ReasonKind::kMissing);
          continue;
        }
        const bool single = it->second.front().group_size <= 1;
        if (single && !noted_single) {
          j.report.notes.push_back(
              "host phase: one rank per host, so its busbw is undefined; only its times are judged");
          noted_single = true;
        }
        HostChecks(j, what, host, op, bytes, it->second, single);
      }
      if (bytes == j.profile.sizes.back() && op == j.profile.ops.front()) HostSuspects(j, groups, op, bytes);
    }
  }
  HostLatencySuspects(j);
}

}  // namespace commbench::accept::judge
