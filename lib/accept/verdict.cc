#include "lib/accept/verdict.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "lib/core/ranges.h"

namespace commbench::accept {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

Check MakeCheck(std::string name, std::string host, bool passed, double measured, double limit, std::string unit,
                std::string reason) {
  Check c;
  c.name = std::move(name);
  c.host = std::move(host);
  c.passed = passed;
  c.measured = measured;
  c.limit = limit;
  c.unit = std::move(unit);
  c.reason = std::move(reason);
  return c;
}

// A suspect is "clearly localised" when it is at least this much slower than its peers (score) and the next one
// scores at most kClearGap of it.
constexpr double kClearScore = 0.3;
constexpr double kClearGap = 0.5;

double Median(std::vector<double> v) {
  if (v.empty()) return kNaN;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
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

bool Near(uint64_t a, uint64_t b) {
  const uint64_t d = a > b ? a - b : b - a;
  return d <= std::max<uint64_t>(64, b / 100);  // the planner rounds a size to whole elements
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

std::vector<const result::RankTime*> GroupRanks(const result::PointResult& p, int group) {
  std::vector<const result::RankTime*> out;
  for (const result::RankTime& r : p.per_rank) {
    if (r.group == group) out.push_back(&r);
  }
  return out;
}

double BusFactor(Collective op, int n) {
  if (n <= 1) return 0;
  return op == Collective::kAllreduce ? 2.0 * (n - 1) / n : static_cast<double>(n - 1) / n;
}

// A group's busbw from its own median time: the point's busbw scaled by time (same bytes, same group size), or
// DESIGN §5's formula where the point has no busbw.
double GroupBusbw(const result::PointResult& p, const result::GroupTime& g) {
  if (g.p50_us <= 0) return kNaN;
  if (p.busbw_gbps > 0 && p.time_us.p50 > 0) return p.busbw_gbps * p.time_us.p50 / g.p50_us;
  return static_cast<double>(p.point.bytes) / (g.p50_us * 1e3) * BusFactor(p.point.op, p.point.group_size);
}

// The group's tail: its slowest rank's p99 over the group's median.
double GroupTail(const result::PointResult& p, const result::GroupTime& g) {
  double p99 = 0;
  for (const result::RankTime* r : GroupRanks(p, g.group)) p99 = std::max(p99, r->time_us.p99);
  return g.p50_us > 0 && p99 > 0 ? p99 / g.p50_us : kNaN;
}

// The point's busbw in each of its repeats (busbw scales as 1 / time at one size).
std::vector<double> RepeatBusbw(const result::PointResult& p) {
  std::vector<double> out;
  for (double m : result::RepeatMedians(p)) {
    if (m > 0 && p.time_us.p50 > 0) out.push_back(p.busbw_gbps * p.time_us.p50 / m);
  }
  return out;
}

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

std::string RepeatNote(size_t seen, int asked) {
  if (seen >= static_cast<size_t>(asked)) return "in " + std::to_string(seen) + " repeat" + (seen == 1 ? "" : "s");
  return "in " + std::to_string(seen) + " of the " + std::to_string(asked) + " repeats the profile asks for";
}

// The figures a check compares, with the limit's origin.
struct Limit {
  double value = kNaN;
  std::string what;     // "declared (source)", "0.5 x best_pair 2.1 GB/s"
  std::string missing;  // why there is no limit (a peak not measured)
};

struct Peaks {
  std::map<std::pair<Collective, uint64_t>, double> best_pair, best_host;
};

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

// Per rank (host, rank): how often it was much slower than its group peers, and the arrival skew it showed.
struct RankRecord {
  int points = 0, slow_points = 0, last_arrivals = 0;
  std::vector<double> ratios;  // its p50 / the median of its peers', where it was slow
  double max_skew_us = 0;
};

class Judgement {
 public:
  explicit Judgement(const AcceptanceInput& in) : in_(in), p_(in.profile) {
    for (size_t i = 0; i < in.expected_hosts.size(); ++i) host_index_[in.expected_hosts[i]] = static_cast<int>(i);
  }

  AcceptanceReport Run() {
    r_.checks = PreflightChecks(p_, in_.expected_hosts, in_.found);
    CollectPeaks();
    for (Phase ph : p_.phases) {
      std::vector<const PhaseResult*> ran;
      std::string why_not;
      for (const PhaseResult& pr : in_.phases) {
        if (pr.phase != ph) continue;
        if (pr.ran) {
          ran.push_back(&pr);
        } else if (why_not.empty()) {
          why_not = pr.why_not.empty() ? "did not run" : pr.why_not;
        }
      }
      if (ran.empty()) {
        NotRun(ph, why_not.empty() ? "no result was given for it" : why_not);
        continue;
      }
      switch (ph) {
        case Phase::kCluster:
          PointChecks(ph, ran);
          break;
        case Phase::kHost:
          PointChecks(ph, ran);
          HostPhase(ran);
          break;
        case Phase::kPairs:
          PointChecks(ph, ran);
          PairsPhase(ran);
          break;
        case Phase::kBisection:
          PointChecks(ph, ran);
          BisectionPhase(ran);
          break;
      }
    }
    for (const PhaseResult& pr : in_.phases) {
      if (pr.ran && !p_.Runs(pr.phase)) {
        r_.notes.push_back(std::string(Name(pr.phase)) +
                           " phase: results given but the profile does not ask for it; "
                           "left out");
      }
    }
    RankSuspects();
    Finish();
    return std::move(r_);
  }

 private:
  void Add(std::string name, std::string host, bool passed, double measured, double limit, std::string unit,
           std::string reason) {
    r_.checks.push_back(MakeCheck(std::move(name), std::move(host), passed, measured, limit, std::move(unit),
                                  std::move(reason)));
  }

  std::vector<const result::PointResult*> Points(const std::vector<const PhaseResult*>& ran, Collective op,
                                                 uint64_t bytes) const {
    std::vector<const result::PointResult*> out;
    for (const PhaseResult* pr : ran) {
      for (const result::PointResult& pt : pr->points) {
        if (Matches(pt, op, bytes)) out.push_back(&pt);
      }
    }
    return out;
  }

  std::vector<const PhaseResult*> Ran(Phase ph) const {
    std::vector<const PhaseResult*> out;
    for (const PhaseResult& pr : in_.phases) {
      if (pr.phase == ph && pr.ran) out.push_back(&pr);
    }
    return out;
  }

  // Single-host groups of the host phase: host -> its group's (busbw, p50, tail) per point.
  struct GroupSample {
    double busbw = kNaN, p50_us = kNaN, tail = kNaN;
    int group_size = 0;
  };
  std::map<std::string, std::vector<GroupSample>> HostGroups(Collective op, uint64_t bytes) const {
    std::map<std::string, std::vector<GroupSample>> out;
    for (const result::PointResult* pt : Points(Ran(Phase::kHost), op, bytes)) {
      for (const result::GroupTime& g : pt->per_group) {
        std::vector<std::string> hosts = GroupHosts(*pt, g);
        if (hosts.size() != 1) continue;
        out[hosts[0]].push_back({GroupBusbw(*pt, g), g.p50_us, GroupTail(*pt, g), pt->point.group_size});
      }
    }
    return out;
  }

  // Pair -> its group samples over the rounds.
  std::map<Pair, std::vector<GroupSample>> PairGroups(Collective op, uint64_t bytes) const {
    std::map<Pair, std::vector<GroupSample>> out;
    for (const result::PointResult* pt : Points(Ran(Phase::kPairs), op, bytes)) {
      for (const result::GroupTime& g : pt->per_group) {
        std::vector<std::string> hosts = GroupHosts(*pt, g);
        if (hosts.size() != 2 || !host_index_.count(hosts[0]) || !host_index_.count(hosts[1])) continue;
        int a = host_index_.at(hosts[0]), b = host_index_.at(hosts[1]);
        out[{std::min(a, b), std::max(a, b)}].push_back(
            {GroupBusbw(*pt, g), g.p50_us, GroupTail(*pt, g), pt->point.group_size});
      }
    }
    return out;
  }

  // Pair -> its best busbw in each round it met: the repeats within a round are one chance to pass.
  std::map<Pair, std::vector<double>> PairRoundBests(const std::vector<const PhaseResult*>& ran, Collective op,
                                                     uint64_t bytes) const {
    std::map<int, std::map<Pair, double>> by_round;
    for (const PhaseResult* pr : ran) {
      for (const result::PointResult& pt : pr->points) {
        if (!Matches(pt, op, bytes)) continue;
        for (const result::GroupTime& g : pt.per_group) {
          std::vector<std::string> hosts = GroupHosts(pt, g);
          if (hosts.size() != 2 || !host_index_.count(hosts[0]) || !host_index_.count(hosts[1])) continue;
          const double gbps = GroupBusbw(pt, g);
          if (!std::isfinite(gbps)) continue;
          const int a = host_index_.at(hosts[0]), b = host_index_.at(hosts[1]);
          double& best = by_round[pr->round].try_emplace({std::min(a, b), std::max(a, b)}, gbps).first->second;
          best = std::max(best, gbps);
        }
      }
    }
    std::map<Pair, std::vector<double>> out;
    for (const auto& [round, pairs] : by_round) {
      for (const auto& [pair, best] : pairs) out[pair].push_back(best);
    }
    return out;
  }

  // The highest busbw floor the pairs phase has at this op and size (value NaN when none can be computed).
  Limit PairFloor(Collective op, uint64_t bytes) const {
    Limit highest;
    for (const Floor& f : p_.floors) {
      if (f.bytes != bytes || !Applies(f.phase, f.op, Phase::kPairs, op)) continue;
      Limit l = FloorLimit(f, op, peaks_);
      if (std::isfinite(l.value) && !(highest.value >= l.value)) highest = l;
    }
    return highest;
  }

  void CollectPeaks() {
    for (Collective op : p_.ops) {
      for (uint64_t bytes : p_.sizes) {
        std::vector<double> pairs, hosts;
        for (const auto& [pair, samples] : PairGroups(op, bytes)) {
          std::vector<double> v;
          for (const GroupSample& s : samples) v.push_back(s.busbw);
          pairs.push_back(Max(v));
        }
        for (const auto& [host, samples] : HostGroups(op, bytes)) {
          std::vector<double> v;
          for (const GroupSample& s : samples) v.push_back(s.busbw);
          hosts.push_back(Max(v));
        }
        if (std::isfinite(Max(pairs))) peaks_.best_pair[{op, bytes}] = Max(pairs);
        if (std::isfinite(Max(hosts))) peaks_.best_host[{op, bytes}] = Max(hosts);
      }
    }
  }

  // A phase the profile asks for that did not run: acceptable only when the phases before it gave a clean answer.
  void NotRun(Phase ph, const std::string& why) {
    AcceptanceInput before = in_;
    before.profile.phases.clear();
    for (Phase q : p_.phases) {
      if (q == ph) break;
      before.profile.phases.push_back(q);
    }
    bool clean = false;
    if (!before.profile.phases.empty()) clean = CleanAnswer(Judge(before));
    std::string reason = std::string(Name(ph)) + " phase did not run (" + why + ")";
    reason += clean ? ": not needed, the phases before it gave a clean answer"
                    : ": the phases before it leave the verdict open, so this is a failure";
    Add(std::string(Name(ph)) + " phase", "", clean, kNaN, kNaN, "", reason);
    if (!clean) r_.notes.push_back(reason);
  }

  // Correctness, floors and ceilings of each op and size at the point level (cluster) or per group (host, pairs).
  void PointChecks(Phase ph, const std::vector<const PhaseResult*>& ran) {
    for (Collective op : p_.ops) {
      for (uint64_t bytes : p_.sizes) {
        const std::string what = What(ph, op, bytes);
        std::vector<const result::PointResult*> pts = Points(ran, op, bytes);
        if (pts.empty()) {
          Add(what, "", false, kNaN, kNaN, "", what + ": no point was measured (fails closed)");
          continue;
        }
        int wrong = 0;
        std::string first_error;
        for (const result::PointResult* pt : pts) {
          if (!pt->correct) {
            ++wrong;
            if (first_error.empty() && !pt->errors.empty()) first_error = pt->errors.front();
          }
        }
        Add(what + " correct", "", wrong == 0, wrong, 0, "wrong points",
            wrong == 0
                ? "every result checked against its pattern in " + std::to_string(pts.size()) + " point(s)"
                : std::to_string(wrong) + " of " + std::to_string(pts.size()) + " point(s) computed a wrong result" +
                      (first_error.empty() ? std::string() : ": " + first_error));
        if (ph == Phase::kCluster) ClusterFigures(what, op, bytes, pts);
      }
    }
  }

  void ClusterFigures(const std::string& what, Collective op, uint64_t bytes,
                      const std::vector<const result::PointResult*>& pts) {
    std::vector<double> busbw, p50, tail;
    for (const result::PointResult* pt : pts) {
      for (double b : RepeatBusbw(*pt)) busbw.push_back(b);
      for (double m : result::RepeatMedians(*pt)) p50.push_back(m);
      if (pt->time_us.p50 > 0) tail.push_back(pt->time_us.p99 / pt->time_us.p50);
    }
    for (const Floor& f : p_.floors) {
      if (f.bytes != bytes || !Applies(f.phase, f.op, Phase::kCluster, op)) continue;
      FloorCheck(what, "", f, op, Max(busbw), busbw.size());
    }
    for (const Ceiling& c : p_.ceilings) {
      if ((c.bytes && *c.bytes != bytes) || !Applies(c.phase, c.op, Phase::kCluster, op)) continue;
      CeilingChecks(what, "", c, Min(p50), p50.size(), Min(tail), tail.size());
    }
  }

  void FloorCheck(const std::string& what, const std::string& host, const Floor& f, Collective op, double measured,
                  size_t repeats) {
    Limit l = FloorLimit(f, op, peaks_);
    const std::string name = what + " " + FloorName(f);
    if (!l.missing.empty()) {
      Add(name, host, false, measured, kNaN, "GB/s", l.missing);
    } else if (!std::isfinite(measured)) {
      Add(name, host, false, kNaN, l.value, "GB/s", "no busbw was measured (fails closed)");
    } else {
      const bool ok = measured >= l.value;
      Add(name, host, ok, measured, l.value, "GB/s",
          (host.empty() ? std::string() : host + ": ") + "busbw " + Gbps(measured) + (ok ? " >= " : " < ") + "floor " +
              Gbps(l.value) + " (" + l.what + "), best " + RepeatNote(repeats, p_.repeats));
    }
  }

  void CeilingChecks(const std::string& what, const std::string& host, const Ceiling& c, double p50, size_t p50_n,
                     double tail, size_t tail_n) {
    const std::string prefix = host.empty() ? std::string() : host + ": ";
    if (c.p50_us > 0) {
      const bool ok = std::isfinite(p50) && p50 <= c.p50_us;
      Add(what + " latency p50", host, ok, p50, c.p50_us, "us",
          !std::isfinite(p50) ? "no time was measured (fails closed)"
                              : prefix + "median " + Us(p50) + (ok ? " <= " : " > ") + "ceiling " + Us(c.p50_us) +
                                    ", best " + RepeatNote(p50_n, p_.repeats));
    }
    if (c.p99_over_p50 > 0) {
      const bool ok = std::isfinite(tail) && tail <= c.p99_over_p50;
      Add(what + " p99/p50", host, ok, tail, c.p99_over_p50, "ratio",
          !std::isfinite(tail) ? "no tail was measured (fails closed)"
                               : prefix + "p99/p50 " + Num(tail) + (ok ? " <= " : " > ") + "ceiling " +
                                     Num(c.p99_over_p50) + ", best " + RepeatNote(tail_n, p_.repeats));
    }
  }

  // Floors and ceilings per host of the host phase, and the hosts much slower than the others.
  void HostPhase(const std::vector<const PhaseResult*>&) {
    bool noted_single = false;
    for (Collective op : p_.ops) {
      for (uint64_t bytes : p_.sizes) {
        const std::string what = What(Phase::kHost, op, bytes);
        auto groups = HostGroups(op, bytes);
        std::vector<double> medians;  // each host's best p50, for the suspects
        for (const std::string& host : in_.expected_hosts) {
          auto it = groups.find(host);
          if (it == groups.end()) {
            Add(what, host, false, kNaN, kNaN, "", host + ": no point of its own ranks at " + what + " (fails closed)");
            continue;
          }
          std::vector<double> busbw, p50, tail;
          for (const GroupSample& s : it->second) {
            busbw.push_back(s.busbw);
            p50.push_back(s.p50_us);
            tail.push_back(s.tail);
          }
          const bool single = it->second.front().group_size <= 1;
          if (single && !noted_single) {
            r_.notes.push_back("host phase: one rank per host, so its busbw is undefined; only its times are judged");
            noted_single = true;
          }
          for (const Floor& f : p_.floors) {
            if (single || f.bytes != bytes || !Applies(f.phase, f.op, Phase::kHost, op)) continue;
            FloorCheck(what, host, f, op, Max(busbw), busbw.size());
          }
          for (const Ceiling& c : p_.ceilings) {
            if ((c.bytes && *c.bytes != bytes) || !Applies(c.phase, c.op, Phase::kHost, op)) continue;
            CeilingChecks(what, host, c, Min(p50), p50.size(), Min(tail), tail.size());
          }
        }
        if (bytes == p_.sizes.back() && op == p_.ops.front()) HostSuspects(groups, op, bytes);
      }
    }
  }

  // A host whose own ranks take much longer than the typical host's at the largest size.
  void HostSuspects(const std::map<std::string, std::vector<GroupSample>>& groups, Collective op, uint64_t bytes) {
    std::map<std::string, double> best_p50, best_busbw;
    std::vector<double> all;
    for (const auto& [host, samples] : groups) {
      std::vector<double> p50, busbw;
      for (const GroupSample& s : samples) {
        p50.push_back(s.p50_us);
        busbw.push_back(s.busbw);
      }
      best_p50[host] = Min(p50);
      best_busbw[host] = Max(busbw);
      all.push_back(best_p50[host]);
      host_busbw_[host] = best_busbw[host];
    }
    if (all.size() < 3) return;  // too few hosts to call one of them unlike the others
    const double typical = Median(all);
    std::vector<double> typical_busbw;
    for (const auto& [host, b] : best_busbw) typical_busbw.push_back(b);
    const double typical_gbps = Median(typical_busbw);
    for (const auto& [host, p50] : best_p50) {
      if (!(p50 * p_.pairs.pair_fraction > typical)) continue;
      AcceptanceSuspect s;
      s.what = SuspectWhat::kHost;
      s.host = host;
      s.score = std::clamp(1 - typical / p50, 0.0, 1.0);
      std::string e = "host phase (" + std::string(Name(op)) + " " + FormatBytes(bytes) +
                      ", its own ranks only): median " + Us(p50) + ", " + Num(p50 / typical) + "x the typical host's " +
                      Us(typical);
      if (std::isfinite(best_busbw[host])) {
        e += "; busbw " + Gbps(best_busbw[host]) + " against the typical host's " + Gbps(typical_gbps);
        for (const Floor& f : p_.floors) {
          if (f.bytes != bytes || !Applies(f.phase, f.op, Phase::kHost, op)) continue;
          Limit l = FloorLimit(f, op, peaks_);
          if (std::isfinite(l.value)) e += " and the floor " + Gbps(l.value) + " (" + l.what + ")";
        }
      }
      s.evidence.push_back(e);
      AddSuspect(std::move(s));
    }
  }

  // Pair floors and ceilings, the per-host pair score, and Localize's host and link suspects.
  void PairsPhase(const std::vector<const PhaseResult*>& ran) {
    const int hosts = static_cast<int>(in_.expected_hosts.size());
    const auto& H = in_.expected_hosts;
    auto pair_name = [&](const Pair& pr) {
      return H[static_cast<size_t>(pr.first)] + "-" + H[static_cast<size_t>(pr.second)];
    };
    std::set<int> round_numbers;
    for (const PhaseResult* pr : ran) round_numbers.insert(pr->round);
    const int rounds_ran = static_cast<int>(round_numbers.size());
    bool localised_clearly = false;
    for (Collective op : p_.ops) {
      for (uint64_t bytes : p_.sizes) {
        const std::string what = What(Phase::kPairs, op, bytes);
        auto groups = PairGroups(op, bytes);
        if (groups.empty()) {
          Add(what + " pairs", "", false, kNaN, kNaN, "", "no host pair was measured at " + what + " (fails closed)");
          continue;
        }
        std::map<Pair, double> best_busbw, best_p50, best_tail;
        for (const auto& [pr, samples] : groups) {
          std::vector<double> b, t, q;
          for (const GroupSample& s : samples) {
            b.push_back(s.busbw);
            t.push_back(s.p50_us);
            q.push_back(s.tail);
          }
          best_busbw[pr] = Max(b);
          best_p50[pr] = Min(t);
          best_tail[pr] = Min(q);
        }
        for (const Floor& f : p_.floors) {
          if (f.bytes != bytes || !Applies(f.phase, f.op, Phase::kPairs, op)) continue;
          Limit l = FloorLimit(f, op, peaks_);
          const std::string name = what + " " + FloorName(f);
          if (!l.missing.empty()) {
            Add(name, "", false, kNaN, kNaN, "GB/s", l.missing);
            continue;
          }
          std::string failing;
          int failed = 0;
          double worst = kNaN;
          for (const auto& [pr, b] : best_busbw) {
            worst = std::isfinite(worst) ? std::min(worst, b) : b;
            if (!(b >= l.value)) {
              ++failed;
              failing += (failing.empty() ? "" : ", ") + pair_name(pr) + " " + Gbps(b) + " (" + Percent(b / l.value) +
                         " of it)";
            }
          }
          Add(name, "", failed == 0, worst, l.value, "GB/s",
              failed == 0
                  ? "all " + std::to_string(best_busbw.size()) + " pairs >= floor " + Gbps(l.value) + " (" + l.what +
                        "); the worst " + Gbps(worst)
                  : std::to_string(failed) + " of " + std::to_string(best_busbw.size()) + " pairs below the floor " +
                        Gbps(l.value) + " (" + l.what + ") in every round they met: " + failing);
        }
        for (const Ceiling& c : p_.ceilings) {
          if ((c.bytes && *c.bytes != bytes) || !Applies(c.phase, c.op, Phase::kPairs, op)) continue;
          std::vector<double> p50s, tails;
          for (const auto& [pr, v] : best_p50) p50s.push_back(v);
          for (const auto& [pr, v] : best_tail) tails.push_back(v);
          CeilingChecks(what + " worst pair", "", c, Max(p50s), p50s.size(), Max(tails), tails.size());
        }
        if (bytes != p_.sizes.back()) continue;
        // Localisation at the op's largest size: bandwidth-bound, where a slow host or link shows most.
        LocalizeOptions lo;
        lo.fraction_of_typical = p_.pairs.pair_fraction;
        Localization loc = Localize(hosts, PairResultsOf(ran, op, bytes, H), lo);
        PairMatrix m;
        m.op = op;
        m.bytes = bytes;
        m.hosts = H;
        m.gbps.assign(H.size(), std::vector<double>(H.size(), kNaN));
        std::map<Pair, double> median;
        for (const auto& [pr, samples] : groups) {
          std::vector<double> b;
          for (const GroupSample& s : samples) b.push_back(s.busbw);
          median[pr] = Median(b);
          m.gbps[static_cast<size_t>(pr.first)][static_cast<size_t>(pr.second)] = median[pr];
          m.gbps[static_cast<size_t>(pr.second)][static_cast<size_t>(pr.first)] = median[pr];
        }
        m.typical_gbps = loc.typical_gbps;
        m.threshold_gbps = loc.threshold_gbps;
        const Limit floor = PairFloor(op, bytes);
        m.floor_gbps = floor.value;
        m.floor = floor.what;
        const double line = std::isfinite(floor.value) ? std::max(loc.threshold_gbps, floor.value) : loc.threshold_gbps;
        m.rounds.assign(H.size(), std::vector<int>(H.size(), 0));
        m.rounds_passed = m.rounds;
        for (const auto& [pr, bests] : PairRoundBests(ran, op, bytes)) {
          const int passed =
              static_cast<int>(std::count_if(bests.begin(), bests.end(), [&](double b) { return b >= line; }));
          for (auto [i, j] : {pr, Pair{pr.second, pr.first}}) {
            m.rounds[static_cast<size_t>(i)][static_cast<size_t>(j)] = static_cast<int>(bests.size());
            m.rounds_passed[static_cast<size_t>(i)][static_cast<size_t>(j)] = passed;
          }
        }
        r_.pair_matrices.push_back(m);
        std::set<int> suspect_hosts;
        for (const Suspect& x : loc.suspects) {
          if (x.kind == SuspectKind::kHost) suspect_hosts.insert(x.host);
        }
        for (const HostScore& hs : loc.hosts) {
          const std::string& host = H[static_cast<size_t>(hs.host)];
          pair_score_[host] = {hs.partners, hs.passed, hs.median_gbps};
          const bool ok = hs.partners > 0 && !suspect_hosts.count(hs.host);
          Add(what + " pair score", host, ok, hs.passed, hs.partners, "partners",
              hs.partners == 0
                  ? host + ": met no partner (fails closed)"
                  : host + ": passed with " + std::to_string(hs.passed) + " of " + std::to_string(hs.partners) +
                        " partners over " + std::to_string(rounds_ran) + " round(s); median " + Gbps(hs.median_gbps) +
                        " against a typical pair's " + Gbps(loc.typical_gbps));
        }
        for (const Suspect& x : loc.suspects) {
          AcceptanceSuspect s;
          s.score = x.severity;
          if (x.kind == SuspectKind::kHost) {
            s.what = SuspectWhat::kHost;
            s.host = H[static_cast<size_t>(x.host)];
            std::string failed, passed;
            for (const auto& [pr, g] : median) {
              if (pr.first != x.host && pr.second != x.host) continue;
              const std::string& other = H[static_cast<size_t>(pr.first == x.host ? pr.second : pr.first)];
              std::string item = other + " " + Gbps(g) + " (" + Percent(g / loc.typical_gbps) + " of typical)";
              if (g < loc.threshold_gbps) {
                failed += (failed.empty() ? "" : ", ") + item;
              } else {
                passed += (passed.empty() ? "" : ", ") + item;
              }
            }
            s.evidence.push_back("pairs phase (" + std::string(Name(op)) + " " + FormatBytes(bytes) +
                                 "): failed with " + std::to_string(x.failed_with.size()) + " of its " +
                                 std::to_string(loc.hosts[static_cast<size_t>(x.host)].partners) + " partners: " +
                                 failed + (passed.empty() ? "" : "; passed with " + passed) + "; threshold " +
                                 Gbps(loc.threshold_gbps) + ", typical pair " + Gbps(loc.typical_gbps));
            s.evidence.push_back(AgainstFloor(op, bytes, x.gbps));
          } else {
            s.what = SuspectWhat::kLink;
            s.host = H[static_cast<size_t>(x.link.first)];
            s.peer = H[static_cast<size_t>(x.link.second)];
            const HostScore& a = loc.hosts[static_cast<size_t>(x.link.first)];
            const HostScore& b = loc.hosts[static_cast<size_t>(x.link.second)];
            s.evidence.push_back("pairs phase (" + std::string(Name(op)) + " " + FormatBytes(bytes) + "): the pair " +
                                 s.host + "-" + s.peer + " moved " + Gbps(x.gbps) + ", " +
                                 Percent(x.gbps / loc.typical_gbps) + " of a typical pair's " + Gbps(loc.typical_gbps) +
                                 ", while " + s.host + " passed with " + std::to_string(a.passed) + " of " +
                                 std::to_string(a.partners) + " partners and " + s.peer + " with " +
                                 std::to_string(b.passed) + " of " + std::to_string(b.partners));
            s.evidence.push_back(AgainstFloor(op, bytes, x.gbps));
          }
          AddSuspect(std::move(s));
        }
        if (!loc.suspects.empty()) {
          localised_clearly =
              loc.suspects.size() == 1 || loc.suspects[1].severity <= kClearGap * loc.suspects[0].severity;
        }
      }
    }
    const bool ok = rounds_ran >= p_.pairs.rounds || localised_clearly;
    Add("pairs rounds", "", ok, rounds_ran, p_.pairs.rounds, "rounds",
        std::to_string(rounds_ran) + " of the " + std::to_string(p_.pairs.rounds) + " rounds ran" +
            (rounds_ran >= p_.pairs.rounds ? ""
             : ok                          ? ": stopped early, the suspect was already clear"
                                           : ": too few to localise (fails closed)"));
  }

  // One block of a bisection level: its host indices, in block order, and its group's figures.
  struct BlockSample {
    int level = 0;
    std::vector<int> hosts;
    GroupSample sample;
  };
  std::vector<BlockSample> BlockSamples(const std::vector<const PhaseResult*>& ran, Collective op,
                                        uint64_t bytes) const {
    std::vector<BlockSample> out;
    for (const PhaseResult* pr : ran) {
      for (const result::PointResult& pt : pr->points) {
        if (!Matches(pt, op, bytes)) continue;
        for (const result::GroupTime& g : pt.per_group) {
          BlockSample b;
          b.level = pr->round;
          for (const std::string& h : GroupHosts(pt, g)) {
            if (host_index_.count(h)) b.hosts.push_back(host_index_.at(h));
          }
          if (b.hosts.empty()) continue;
          b.sample = {GroupBusbw(pt, g), g.p50_us, GroupTail(pt, g), pt.point.group_size};
          out.push_back(std::move(b));
        }
      }
    }
    return out;
  }

  // Block floors and ceilings, each host's blocks, and Bisect's host suspects at each op's largest size.
  void BisectionPhase(const std::vector<const PhaseResult*>& ran) {
    const auto& H = in_.expected_hosts;
    const int planned = static_cast<int>(BisectionLevels(static_cast<int>(H.size())).size());
    std::set<int> levels;
    for (const PhaseResult* pr : ran) levels.insert(pr->round);
    const int levels_ran = static_cast<int>(levels.size());
    bool localised_clearly = false;
    for (Collective op : p_.ops) {
      for (uint64_t bytes : p_.sizes) {
        const std::string what = What(Phase::kBisection, op, bytes);
        const std::vector<BlockSample> samples = BlockSamples(ran, op, bytes);
        if (samples.empty()) {
          Add(what + " blocks", "", false, kNaN, kNaN, "", "no block was measured at " + what + " (fails closed)");
          continue;
        }
        // The best repeat of each block, for the floors and ceilings.
        std::map<std::pair<int, std::vector<int>>, GroupSample> best;
        for (const BlockSample& b : samples) {
          auto [it, added] = best.emplace(std::make_pair(b.level, b.hosts), b.sample);
          if (!added) {
            it->second.busbw = Max({it->second.busbw, b.sample.busbw});
            it->second.p50_us = Min({it->second.p50_us, b.sample.p50_us});
            it->second.tail = Min({it->second.tail, b.sample.tail});
          }
        }
        double floor_gbps = 0;
        for (const Floor& f : p_.floors) {
          if (f.bytes != bytes || !Applies(f.phase, f.op, Phase::kBisection, op)) continue;
          Limit l = FloorLimit(f, op, peaks_);
          const std::string name = what + " " + FloorName(f);
          if (!l.missing.empty()) {
            Add(name, "", false, kNaN, kNaN, "GB/s", l.missing);
            continue;
          }
          floor_gbps = std::max(floor_gbps, l.value);
          std::string failing;
          int failed = 0;
          std::vector<double> all;
          for (const auto& [block, s] : best) {
            all.push_back(s.busbw);
            if (s.busbw >= l.value) continue;
            ++failed;
            failing += (failing.empty() ? "" : ", ") + std::string("level ") + std::to_string(block.first) + " [" +
                       BlockName(H, block.second) + "] " + Gbps(s.busbw) + " (" + Percent(s.busbw / l.value) +
                       " of it)";
          }
          Add(name, "", failed == 0, Min(all), l.value, "GB/s",
              failed == 0 ? "all " + std::to_string(best.size()) + " blocks >= floor " + Gbps(l.value) + " (" + l.what +
                                "); the worst " + Gbps(Min(all))
                          : std::to_string(failed) + " of " + std::to_string(best.size()) + " blocks below the floor " +
                                Gbps(l.value) + " (" + l.what + ") in every repeat: " + failing);
        }
        for (const Ceiling& c : p_.ceilings) {
          if ((c.bytes && *c.bytes != bytes) || !Applies(c.phase, c.op, Phase::kBisection, op)) continue;
          std::vector<double> p50s, tails;
          for (const auto& [block, s] : best) {
            p50s.push_back(s.p50_us);
            tails.push_back(s.tail);
          }
          CeilingChecks(what + " worst block", "", c, Max(p50s), p50s.size(), Max(tails), tails.size());
        }
        if (bytes != p_.sizes.back()) continue;
        // Localisation at the op's largest size: bandwidth-bound, where a slow host shows most.
        std::vector<BlockResult> results;
        for (const BlockSample& b : samples) results.push_back({b.level, b.hosts, b.sample.busbw});
        BisectOptions bo;
        bo.floor_gbps = floor_gbps;
        bo.fraction_of_typical = p_.bisection.block_fraction;
        const Bisection bis = Bisect(H, results, bo);
        r_.bisections.push_back({op, bytes, H, bis.levels});
        BisectionHostChecks(what, bis);
        std::string unexplained;
        for (size_t i = 0; i < bis.unexplained.size() && i < 3; ++i) {
          unexplained += (unexplained.empty() ? "" : "; ") + bis.unexplained[i].evidence;
        }
        if (bis.unexplained.size() > 3) unexplained += "; and " + std::to_string(bis.unexplained.size() - 3) + " more";
        Add(what + " unexplained blocks", "", bis.unexplained.empty(), static_cast<double>(bis.unexplained.size()), 0,
            "blocks",
            bis.unexplained.empty() ? "every failing block holds a suspect (or none failed)"
                                    : std::to_string(bis.unexplained.size()) +
                                          " failing block(s) that no single host explains: " + unexplained);
        for (const BisectSuspect& x : bis.suspects) {
          AcceptanceSuspect s;
          s.what = SuspectWhat::kHost;
          s.host = H[static_cast<size_t>(x.host)];
          s.score = x.severity;
          s.evidence.push_back("bisection phase (" + std::string(Name(op)) + " " + FormatBytes(bytes) + ", " +
                               std::to_string(levels_ran) + " level(s), a block fails below " +
                               Num(p_.bisection.block_fraction) + " x the typical block of its level" +
                               (floor_gbps > 0 ? " or the floor " + Gbps(floor_gbps) : std::string()) +
                               "): " + x.evidence);
          AddSuspect(std::move(s));
        }
        if (!bis.suspects.empty()) {
          localised_clearly =
              bis.suspects.size() == 1 || bis.suspects[1].severity <= kClearGap * bis.suspects[0].severity;
        }
      }
    }
    const bool ok = levels_ran >= planned || localised_clearly;
    Add("bisection levels", "", ok, levels_ran, planned, "levels",
        std::to_string(levels_ran) + " of the " + std::to_string(planned) + " levels ran" +
            (levels_ran >= planned ? ""
             : ok                  ? ": stopped early, the suspect was already clear"
                                   : ": too few to localise (fails closed)"));
  }

  // Per host: its block at each level; a host no block of the finest cuts cleared fails (closed).
  void BisectionHostChecks(const std::string& what, const Bisection& bis) {
    const auto& H = in_.expected_hosts;
    std::set<int> suspects;
    for (const BisectSuspect& x : bis.suspects) suspects.insert(x.host);
    for (size_t h = 0; h < H.size(); ++h) {
      int ran = 0, passed = 0;
      std::string failed_with;
      for (const LevelVerdict& l : bis.levels) {
        for (const BlockVerdict& b : l.blocks) {
          if (std::find(b.hosts.begin(), b.hosts.end(), static_cast<int>(h)) == b.hosts.end()) continue;
          ++ran;
          passed += !b.failed;
          if (l.finest && b.failed) {
            for (int m : b.hosts) {
              if (m == static_cast<int>(h)) continue;
              failed_with += (failed_with.empty() ? "" : ", ") + H[static_cast<size_t>(m)];
            }
          }
        }
      }
      const bool suspect = suspects.count(static_cast<int>(h)) > 0;
      const bool cleared = h < bis.cleared.size() && bis.cleared[h];
      std::string reason = H[h] + ": its block passed at " + std::to_string(passed) + " of the " + std::to_string(ran) +
                           " level(s) it ran";
      if (suspect) {
        reason += "; a suspect";
      } else if (!cleared) {
        reason += ran == 0 ? "; in no block (fails closed)"
                           : "; no block of the finest cuts cleared it (it failed with " +
                                 (failed_with.empty() ? std::string("no one") : failed_with) + "; fails closed)";
      }
      Add(what + " blocks", H[h], cleared && !suspect, passed, ran, "levels", reason);
    }
  }

  std::string AgainstFloor(Collective op, uint64_t bytes, double gbps) const {
    std::string e = "its pair busbw " + Gbps(gbps);
    bool any = false;
    for (const Floor& f : p_.floors) {
      if (f.bytes != bytes || !Applies(f.phase, f.op, Phase::kPairs, op)) continue;
      Limit l = FloorLimit(f, op, peaks_);
      if (!std::isfinite(l.value)) continue;
      e += std::string(any ? "," : " against") + " the floor " + Gbps(l.value) + " (" + l.what + ", " +
           Percent(gbps / l.value) + " of it)";
      any = true;
    }
    return any ? e : e + " (no pairs floor at this size)";
  }

  // Ranks much slower than their group peers, over every point of every phase that ran; and the arrival skew.
  void RankSuspects() {
    std::map<std::pair<std::string, int>, RankRecord> records;
    for (const PhaseResult& pr : in_.phases) {
      if (!pr.ran || !p_.Runs(pr.phase)) continue;
      for (const result::PointResult& pt : pr.points) {
        for (const result::GroupTime& g : pt.per_group) {
          std::vector<const result::RankTime*> ranks = GroupRanks(pt, g.group);
          if (ranks.size() < 2) continue;
          for (const result::RankTime* r : ranks) {
            std::vector<double> peers;
            for (const result::RankTime* q : ranks) {
              if (q != r) peers.push_back(q->time_us.p50);
            }
            // By process rank (launch rank in older files): each phase orders ranks its own way, a slow process
            // is the same one in all of them.
            RankRecord& rec = records[{AddressOf(*r), r->process_rank >= 0 ? r->process_rank : r->rank}];
            ++rec.points;
            const double peer = Median(peers);
            if (peer > 0 && r->time_us.p50 >= p_.pairs.slow_rank_factor * peer) {
              ++rec.slow_points;
              rec.ratios.push_back(r->time_us.p50 / peer);
            }
            if (pt.skew.slowest_rank == r->rank) {
              ++rec.last_arrivals;
              rec.max_skew_us = std::max(rec.max_skew_us, pt.skew.start_skew_us);
            }
          }
        }
      }
    }
    for (const auto& [key, rec] : records) {
      rank_records_[key.first].push_back({key.second, rec});
      if (rec.slow_points == 0 || 2 * rec.slow_points < rec.points) continue;
      const double ratio = Median(rec.ratios);
      AcceptanceSuspect s;
      s.what = SuspectWhat::kRank;
      s.host = key.first;
      s.rank = key.second;
      s.score = std::clamp(1 - 1 / ratio, 0.0, 1.0);
      s.evidence.push_back("rank " + std::to_string(key.second) + " on " + key.first + ": its median time was " +
                           Num(ratio) + "x its group peers' (median) at " + std::to_string(rec.slow_points) +
                           " of the " + std::to_string(rec.points) + " points it ran");
      if (rec.last_arrivals > 0) {
        s.evidence.push_back("arrival skew: the slowest rank at " + std::to_string(rec.last_arrivals) +
                             " point(s), start skew up to " + Us(rec.max_skew_us));
      }
      AddSuspect(std::move(s));
    }
  }

  // One entry per host (or link): a rank suspect absorbs its host's, a host seen by several phases keeps its
  // highest score and all its evidence.
  void AddSuspect(AcceptanceSuspect s) {
    for (AcceptanceSuspect& t : r_.suspects) {
      const bool same = t.host == s.host && t.peer == s.peer && t.what == s.what && t.rank == s.rank;
      const bool absorbs = s.what == SuspectWhat::kRank && t.what == SuspectWhat::kHost && t.host == s.host;
      const bool absorbed = s.what == SuspectWhat::kHost && t.what == SuspectWhat::kRank && t.host == s.host;
      if (same || absorbs || absorbed) {
        if (absorbs) {
          t.what = SuspectWhat::kRank;
          t.rank = s.rank;
          t.evidence.insert(t.evidence.begin(), s.evidence.begin(), s.evidence.end());
        } else {
          t.evidence.insert(t.evidence.end(), s.evidence.begin(), s.evidence.end());
        }
        t.score = std::max(t.score, s.score);
        return;
      }
    }
    r_.suspects.push_back(std::move(s));
  }

  void Finish() {
    // Arrival-skew evidence for host suspects: which of its ranks was the slowest, how often.
    for (AcceptanceSuspect& s : r_.suspects) {
      if (s.what != SuspectWhat::kHost) continue;
      auto it = rank_records_.find(s.host);
      if (it == rank_records_.end()) continue;
      int points = 0, last = 0;
      double skew = 0;
      for (const auto& [rank, rec] : it->second) {
        points = std::max(points, rec.points);
        last += rec.last_arrivals;
        skew = std::max(skew, rec.max_skew_us);
      }
      if (last > 0) {
        s.evidence.push_back("arrival skew: one of its ranks was the slowest at " + std::to_string(last) +
                             " point(s), start skew up to " + Us(skew));
      } else {
        s.evidence.push_back(
            "arrival skew: none of its ranks was the slowest of a point (the delay is between "
            "hosts, not in a rank)");
      }
    }
    std::stable_sort(r_.suspects.begin(), r_.suspects.end(),
                     [](const AcceptanceSuspect& a, const AcceptanceSuspect& b) { return a.score > b.score; });
    for (const AcceptanceSuspect& s : r_.suspects) {
      std::string name = "suspect " + std::string(Name(s.what));
      std::string who = s.what == SuspectWhat::kLink   ? s.host + "-" + s.peer
                        : s.what == SuspectWhat::kRank ? s.host + " rank " + std::to_string(s.rank)
                                                       : s.host;
      Add(name, s.host, false, s.score, 0, "score", who + ": " + (s.evidence.empty() ? "" : s.evidence.front()));
    }
    // Hosts.
    std::map<std::string, int> points;
    for (const PhaseResult& pr : in_.phases) {
      if (!pr.ran || !p_.Runs(pr.phase)) continue;
      for (const result::PointResult& pt : pr.points) {
        std::set<std::string> seen;
        for (const result::RankTime& r : pt.per_rank) seen.insert(AddressOf(r));
        for (const result::GroupTime& g : pt.per_group) {
          for (const std::string& h : GroupHosts(pt, g)) seen.insert(h);
        }
        for (const std::string& h : seen) ++points[h];
      }
    }
    for (const std::string& host : in_.expected_hosts) {
      if (!points.count(host)) {
        Add("host measured", host, false, 0, 1, "points", host + ": took part in no measured point (fails closed)");
      }
    }
    for (const std::string& host : in_.expected_hosts) {
      HostVerdict v;
      v.host = host;
      v.points = points.count(host) ? points[host] : 0;
      if (pair_score_.count(host)) {
        v.partners = std::get<0>(pair_score_[host]);
        v.partners_passed = std::get<1>(pair_score_[host]);
        v.pair_busbw_gbps = std::get<2>(pair_score_[host]);
      }
      if (host_busbw_.count(host) && std::isfinite(host_busbw_[host])) v.host_busbw_gbps = host_busbw_[host];
      for (const Check& c : r_.checks) {
        if (c.host == host && !c.passed) v.reasons.push_back(c.name + ": " + c.reason);
      }
      for (const AcceptanceSuspect& s : r_.suspects) {
        if (s.what == SuspectWhat::kLink && (s.host == host || s.peer == host)) {
          v.reasons.push_back("one end of the suspect link " + s.host + "-" + s.peer);
        }
      }
      v.passed = v.reasons.empty();
      r_.hosts.push_back(std::move(v));
    }
    r_.passed =
        std::all_of(r_.checks.begin(), r_.checks.end(), [](const Check& c) { return c.passed; }) && r_.suspects.empty();
  }

  const AcceptanceInput& in_;
  const Profile& p_;
  std::map<std::string, int> host_index_;
  Peaks peaks_;
  AcceptanceReport r_;
  std::map<std::string, std::tuple<int, int, double>> pair_score_;  // partners, passed, median GB/s
  std::map<std::string, double> host_busbw_;
  std::map<std::string, std::vector<std::pair<int, RankRecord>>> rank_records_;
};

}  // namespace

std::string_view Name(SuspectWhat w) {
  switch (w) {
    case SuspectWhat::kHost:
      return "host";
    case SuspectWhat::kLink:
      return "link";
    case SuspectWhat::kRank:
      return "rank";
  }
  return "?";
}

bool AcceptanceReport::PreflightFailed() const {
  return std::any_of(checks.begin(), checks.end(), [](const Check& c) { return c.preflight && !c.passed; });
}

int AcceptanceReport::ExitCode() const {
  if (PreflightFailed()) return 3;
  return passed ? 0 : 1;
}

std::vector<Check> PreflightChecks(const Profile& profile, const std::vector<std::string>& expected_hosts,
                                   const std::vector<HostFound>& found) {
  std::vector<Check> out;
  auto add = [&out](std::string name, std::string host, bool passed, double measured, double limit, std::string unit,
                    std::string reason) {
    Check c = MakeCheck(std::move(name), std::move(host), passed, measured, limit, std::move(unit), std::move(reason));
    c.preflight = true;
    out.push_back(std::move(c));
  };
  const int want_hosts = profile.preflight.hosts;
  const int n = static_cast<int>(expected_hosts.size());
  add("preflight hosts", "", n > 0 && (want_hosts == 0 || n == want_hosts), n, want_hosts, "hosts",
      n == 0            ? "no host to accept"
      : want_hosts == 0 ? std::to_string(n) + " host(s), as the launcher gave them"
                        : std::to_string(n) + " host(s), the profile expects " + std::to_string(want_hosts));
  std::map<std::string, const HostFound*> by_host;
  for (const HostFound& f : found) by_host[f.host] = &f;
  for (const std::string& host : expected_hosts) {
    auto it = by_host.find(host);
    const HostFound* f = it == by_host.end() ? nullptr : it->second;
    const int ranks = f ? static_cast<int>(f->ranks.size()) : 0;
    const int want = profile.preflight.ranks_per_host;
    const bool ok = want > 0 ? ranks == want : ranks > 0;
    add("preflight ranks", host, ok, ranks, want > 0 ? want : 1, "ranks",
        host + ": " + std::to_string(ranks) + " rank(s) joined" +
            (want > 0 ? ", the profile expects " + std::to_string(want) : std::string()) +
            (ranks == 0 ? " (missing at rendezvous)" : ""));
    if (!profile.preflight.interface.empty()) {
      const bool has = f && std::find(f->interfaces.begin(), f->interfaces.end(), profile.preflight.interface) !=
                                f->interfaces.end();
      std::string present;
      if (f) {
        for (const std::string& i : f->interfaces) present += (present.empty() ? "" : ", ") + i;
      }
      add("preflight interface", host, has, has, 1, "",
          host + ": interface " + profile.preflight.interface + (has ? " present" : " missing") +
              (f ? " (present: " + (present.empty() ? std::string("none") : present) + ")" : " (host not reached)"));
    }
    if (profile.preflight.gpus_per_host > 0) {
      const int gpus = f ? f->gpus : -1;
      const bool has = gpus >= profile.preflight.gpus_per_host;
      add("preflight gpus", host, has, gpus, profile.preflight.gpus_per_host, "GPUs",
          host + ": " + (gpus < 0 ? std::string("GPUs not probed") : std::to_string(gpus) + " GPU(s)") +
              ", the profile expects " + std::to_string(profile.preflight.gpus_per_host));
    }
  }
  return out;
}

AcceptanceReport Judge(const AcceptanceInput& input) { return Judgement(input).Run(); }

bool CleanAnswer(const AcceptanceReport& report) {
  if (report.PreflightFailed()) return false;
  const bool all_pass =
      std::all_of(report.checks.begin(), report.checks.end(), [](const Check& c) { return c.passed; });
  if (all_pass && report.suspects.empty()) return true;
  if (report.suspects.empty()) return false;
  // A slow pair is a slow link only once each end passed with another partner: after one round a slow host looks
  // like a slow link to whichever host it met.
  const AcceptanceSuspect& first = report.suspects[0];
  if (first.what == SuspectWhat::kLink) {
    for (const HostVerdict& h : report.hosts) {
      if ((h.host == first.host || h.host == first.peer) && h.partners < 2) return false;
    }
  }
  const double top = report.suspects[0].score;
  return top >= kClearScore && (report.suspects.size() == 1 || report.suspects[1].score <= kClearGap * top);
}

std::vector<PairResult> PairResults(const std::vector<PhaseResult>& rounds, Collective op, uint64_t bytes,
                                    const std::vector<std::string>& hosts) {
  std::vector<const PhaseResult*> ptrs;
  for (const PhaseResult& r : rounds) ptrs.push_back(&r);
  return PairResultsOf(ptrs, op, bytes, hosts);
}

}  // namespace commbench::accept
