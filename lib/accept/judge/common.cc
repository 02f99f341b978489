#include "lib/accept/judge/common.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "lib/core/ranges.h"

namespace commbench::accept::judge {
namespace {

bool Near(uint64_t a, uint64_t b) {
  const uint64_t d = a > b ? a - b : b - a;
  return d <= std::max<uint64_t>(64, b / 100);  // the planner rounds a size to whole elements
}

double BusFactor(Collective op, int n) {
  if (n <= 1) return 0;
  return op == Collective::kAllreduce ? 2.0 * (n - 1) / n : static_cast<double>(n - 1) / n;
}

}  // namespace

double Max(const std::vector<double>& v) {
  double m = kNaN;
  for (double x : v) {
    if (std::isfinite(x) && !(m >= x)) m = x;
  }
  return m;
}

double Min(const std::vector<double>& v) {
  double m = kNaN;
  for (double x : v) {
    if (std::isfinite(x) && !(m <= x)) m = x;
  }
  return m;
}

std::string Num(double v) {
  if (!std::isfinite(v)) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3g", v);
  return buf;
}

std::string Gbps(double v) { return Num(v) + " GB/s"; }
std::string Us(double v) { return Num(v) + " us"; }
std::string Percent(double v) {
  return std::isfinite(v) ? std::to_string(static_cast<int>(std::lround(100 * v))) + "%" : "n/a";
}

std::string What(Phase ph, Collective op, uint64_t bytes) {
  return std::string(Name(ph)) + " " + std::string(Name(op)) + " " + FormatBytes(bytes);
}

std::string RepeatNote(size_t seen, int asked) {
  if (seen >= static_cast<size_t>(asked)) return "in " + std::to_string(seen) + " repeat" + (seen == 1 ? "" : "s");
  return "in " + std::to_string(seen) + " of the " + std::to_string(asked) + " repeats the profile asks for";
}

Check MakeCheck(std::string name, std::string host, bool passed, double measured, double limit, std::string unit,
                std::string reason, ReasonKind kind) {
  Check c;
  c.kind = kind;
  c.name = std::move(name);
  c.host = std::move(host);
  c.passed = passed;
  c.measured = measured;
  c.limit = limit;
  c.unit = std::move(unit);
  c.reason = std::move(reason);
  return c;
}

bool Matches(const result::PointResult& p, Collective op, uint64_t bytes) {
  return p.point.op == op && Near(p.point.bytes, bytes);
}

std::string AddressOf(const result::RankTime& r) { return r.address.empty() ? r.host : r.address; }

// The hosts a group ran on: per_group[g].hosts, or (older files) its ranks' addresses.
std::vector<std::string> GroupHosts(const result::PointResult& p, const result::GroupTime& g) {
  if (!g.hosts.empty()) return g.hosts;
  std::vector<std::string> hosts;
  for (const result::RankTime& r : p.per_rank) {
    if (r.group == g.group && std::find(hosts.begin(), hosts.end(), AddressOf(r)) == hosts.end()) {
      hosts.push_back(AddressOf(r));
    }
  }
  return hosts;
}

std::map<int, std::vector<const result::RankTime*>> RanksByGroup(const result::PointResult& p) {
  std::map<int, std::vector<const result::RankTime*>> out;
  for (const result::RankTime& r : p.per_rank) out[r.group].push_back(&r);
  return out;
}

// A group's busbw from its own median time: the point's busbw scaled by time (same bytes, same group size), or
// docs/design.md §5's formula where the point has no busbw.
double GroupBusbw(const result::PointResult& p, const result::GroupTime& g) {
  if (g.p50_us <= 0) return kNaN;
  if (p.busbw_gbps > 0 && p.time_us.p50 > 0) return p.busbw_gbps * p.time_us.p50 / g.p50_us;
  return static_cast<double>(p.point.bytes) / (g.p50_us * 1e3) * BusFactor(p.point.op, p.point.group_size);
}

// Each group's tail: its slowest rank's p99 over the group's median.
std::map<int, double> GroupTails(const result::PointResult& p) {
  std::map<int, double> p99;
  for (const result::RankTime& r : p.per_rank) p99[r.group] = std::max(p99[r.group], r.time_us.p99);
  std::map<int, double> out;
  for (const result::GroupTime& g : p.per_group) {
    out[g.group] = g.p50_us > 0 && p99[g.group] > 0 ? p99[g.group] / g.p50_us : kNaN;
  }
  return out;
}

double RankCpuWaitUs(const result::RankTime& r, int64_t iters) {
  return r.runqueue_wait_s < 0 || iters <= 0 ? kNaN : r.runqueue_wait_s * 1e6 / static_cast<double>(iters);
}

std::map<int, double> GroupCpuWaits(const result::PointResult& p) {
  std::map<int, double> out;
  for (const result::GroupTime& g : p.per_group) out[g.group] = kNaN;
  for (const result::RankTime& r : p.per_rank) {
    const double us = RankCpuWaitUs(r, p.iters);
    if (!std::isfinite(us)) continue;
    double& w = out.try_emplace(r.group, kNaN).first->second;
    w = std::isfinite(w) ? std::max(w, us) : us;
  }
  return out;
}

double MedianCpuWait(const std::vector<GroupSample>& samples) {
  std::vector<double> v;
  for (const GroupSample& s : samples) {
    if (std::isfinite(s.cpu_wait_us)) v.push_back(s.cpu_wait_us);
  }
  return Median(v);
}

double MedianP50(const std::vector<GroupSample>& samples) {
  std::vector<double> v;
  for (const GroupSample& s : samples) v.push_back(s.p50_us);
  return Median(v);
}

std::string CpuWaitEvidence(const std::string& who, double wait_us, const std::string& against, double against_us,
                            double excess_us) {
  const double extra = wait_us - against_us;
  if (!std::isfinite(extra)) return "";
  if (extra > 0 && extra >= 0.5 * excess_us) {
    return who + " waited for a CPU " + Us(wait_us) + " per op, " + Us(extra) + " more than " + against + " " +
           Us(against_us) +
           ": most of its excess is time without a CPU (a CPU quota, throttling or other work on that host)";
  }
  return who + " waited for a CPU " + Us(wait_us) + " per op against " + against + " " + Us(against_us) +
         ": its excess is not time without a CPU";
}

double TypicalCpuWait(const std::map<Pair, std::vector<GroupSample>>& groups) {
  std::vector<double> all;
  for (const auto& [pair, samples] : groups) {
    const double w = MedianCpuWait(samples);
    if (std::isfinite(w)) all.push_back(w);
  }
  return Median(all);
}

CpuWaitShare CpuWaitOf(const std::map<Pair, std::vector<GroupSample>>& groups, const Pair& pair) {
  CpuWaitShare out;
  out.typical_wait_us = TypicalCpuWait(groups);
  const auto it = groups.find(pair);
  if (it != groups.end()) out.extra_wait_us = MedianCpuWait(it->second) - out.typical_wait_us;
  return out;
}

std::string CpuWaitNote(const std::vector<std::string>& hosts, const Pair& pair, const std::string& figure,
                        const CpuWaitShare& wait) {
  return "the pair " + hosts[static_cast<size_t>(pair.first)] + "-" + hosts[static_cast<size_t>(pair.second)] + " " +
         figure + ", but its ranks waited for a CPU " + Us(wait.extra_wait_us) +
         " per op more than a typical pair's (" + Us(wait.typical_wait_us) +
         "): the host's scheduler, not the link; not named";
}

// The point's busbw in each of its repeats (busbw scales as 1 / time at one size).
std::vector<double> RepeatBusbw(const result::PointResult& p) {
  std::vector<double> out;
  for (double m : result::RepeatMedians(p)) {
    if (m > 0 && p.time_us.p50 > 0) out.push_back(p.busbw_gbps * p.time_us.p50 / m);
  }
  return out;
}

Limit FloorLimit(const Floor& f, Collective op, const Peaks& peaks) {
  Limit l;
  if (f.of == PeakOf::kNone) {
    l.value = f.busbw_gbps;
    l.what = "declared" + (f.source.empty() ? std::string() : " (" + f.source + ")");
    return l;
  }
  const auto& table = f.of == PeakOf::kBestPair ? peaks.best_pair : peaks.best_host;
  auto it = table.find({op, f.bytes});
  if (it == table.end() || !std::isfinite(it->second)) {
    l.missing = "no " + std::string(Name(f.of)) + " peak was measured (the " +
                (f.of == PeakOf::kBestPair ? "pairs" : "host") + " phase has no point at this op and size)";
    return l;
  }
  l.value = f.fraction * it->second;
  l.what = Num(f.fraction) + " x " + std::string(Name(f.of)) + " " + Gbps(it->second);
  return l;
}

bool Applies(const std::optional<Phase>& ph, const std::optional<Collective>& op, Phase phase, Collective o) {
  return (!ph || *ph == phase) && (!op || *op == o);
}

std::string FloorName(const Floor& f) {
  return f.of == PeakOf::kNone ? "busbw floor" : "busbw floor " + Num(f.fraction) + "x" + std::string(Name(f.of));
}

std::vector<PairResult> PairResultsOf(const std::vector<const PhaseResult*>& rounds, Collective op, uint64_t bytes,
                                      const std::vector<std::string>& hosts) {
  std::map<std::string, int> index;
  for (size_t i = 0; i < hosts.size(); ++i) index[hosts[i]] = static_cast<int>(i);
  std::vector<PairResult> out;
  for (const PhaseResult* r : rounds) {
    if (r->phase != Phase::kPairs || !r->ran) continue;
    for (const result::PointResult& p : r->points) {
      if (!Matches(p, op, bytes)) continue;
      for (const result::GroupTime& g : p.per_group) {
        std::vector<std::string> two = GroupHosts(p, g);
        if (two.size() != 2 || !index.count(two[0]) || !index.count(two[1])) continue;
        const double gbps = GroupBusbw(p, g);
        if (!std::isfinite(gbps)) continue;
        const int a = index[two[0]], b = index[two[1]];
        out.push_back({{std::min(a, b), std::max(a, b)}, gbps});
      }
    }
  }
  return out;
}

}  // namespace commbench::accept::judge
