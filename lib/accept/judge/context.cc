#include "lib/accept/judge/context.h"

#include <algorithm>
#include <cmath>

namespace commbench::accept::judge {

Judging::Judging(const AcceptanceInput& input) : in(input), profile(input.profile) {
  for (size_t i = 0; i < in.expected_hosts.size(); ++i) host_index[in.expected_hosts[i]] = static_cast<int>(i);
}

void Judging::Add(std::string name, std::string host, bool passed, double measured, double limit, std::string unit,
                  std::string reason, ReasonKind kind) {
  report.checks.push_back(
      MakeCheck(std::move(name), std::move(host), passed, measured, limit, std::move(unit), std::move(reason), kind));
}

void Judging::AddSuspect(AcceptanceSuspect s) {
  // A link one of whose ends is a suspect host (or a rank on it) is that host's slowness seen by one partner, as
  // Localize reads it within one statistic: across statistics too (a capped host beside a busy loop failed 4 MiB
  // bandwidth with every partner, while 4 KiB latency noise named one of its links first).
  auto on = [](const AcceptanceSuspect& host, const AcceptanceSuspect& link) {
    return host.what != SuspectWhat::kLink && link.what == SuspectWhat::kLink &&
           (link.host == host.host || link.peer == host.host);
  };
  auto bases = [](AcceptanceSuspect* into, const AcceptanceSuspect& from) {
    for (const SuspectBasis& b : from.found_by) {
      if (std::find(into->found_by.begin(), into->found_by.end(), b) == into->found_by.end()) {
        into->found_by.push_back(b);
      }
    }
  };
  auto fold = [&bases](AcceptanceSuspect* into, const AcceptanceSuspect& from) {
    into->evidence.insert(into->evidence.end(), from.evidence.begin(), from.evidence.end());
    into->score = std::max(into->score, from.score);
    bases(into, from);
  };
  for (AcceptanceSuspect& t : report.suspects) {
    if (on(t, s)) return fold(&t, s);
  }
  for (auto it = report.suspects.begin(); it != report.suspects.end();) {
    if (!on(s, *it)) {
      ++it;
      continue;
    }
    fold(&s, *it);
    it = report.suspects.erase(it);
  }
  for (AcceptanceSuspect& t : report.suspects) {
    const bool same = t.host == s.host && t.peer == s.peer && t.what == s.what && t.rank == s.rank;
    const bool absorbs = s.what == SuspectWhat::kRank && t.what == SuspectWhat::kHost && t.host == s.host;
    const bool absorbed = s.what == SuspectWhat::kHost && t.what == SuspectWhat::kRank && t.host == s.host;
    if (same || absorbs || absorbed) {
      bases(&t, s);
      if (absorbs) {
        t.what = SuspectWhat::kRank;
        t.rank = s.rank;
        t.pid = s.pid;
        t.reason = s.reason;
        t.evidence.insert(t.evidence.begin(), s.evidence.begin(), s.evidence.end());
      } else {
        t.evidence.insert(t.evidence.end(), s.evidence.begin(), s.evidence.end());
      }
      t.score = std::max(t.score, s.score);
      if (s.reason == ReasonKind::kStraggler) t.reason = s.reason;  // the more specific kind
      return;
    }
  }
  report.suspects.push_back(std::move(s));
}

Ran Judging::RanOf(Phase ph) const {
  Ran out;
  for (const PhaseResult& pr : in.phases) {
    if (pr.phase == ph && pr.ran) out.push_back(&pr);
  }
  return out;
}

std::vector<const result::PointResult*> Judging::Points(const Ran& ran, Collective op, uint64_t bytes) const {
  std::vector<const result::PointResult*> out;
  for (const PhaseResult* pr : ran) {
    for (const result::PointResult& pt : pr->points) {
      if (Matches(pt, op, bytes)) out.push_back(&pt);
    }
  }
  return out;
}

std::map<std::string, std::vector<GroupSample>> Judging::HostGroups(Collective op, uint64_t bytes) const {
  std::map<std::string, std::vector<GroupSample>> out;
  for (const result::PointResult* pt : Points(RanOf(Phase::kHost), op, bytes)) {
    std::map<int, double> tails = GroupTails(*pt), waits = GroupCpuWaits(*pt);
    for (const result::GroupTime& g : pt->per_group) {
      std::vector<std::string> hosts = GroupHosts(*pt, g);
      if (hosts.size() != 1) continue;
      out[hosts[0]].push_back({GroupBusbw(*pt, g), g.p50_us, tails[g.group], pt->point.group_size, waits[g.group]});
    }
  }
  return out;
}

bool Judging::PairOf(const std::vector<std::string>& group_hosts, Pair* pair) const {
  if (group_hosts.size() != 2 || !host_index.count(group_hosts[0]) || !host_index.count(group_hosts[1])) return false;
  const int a = host_index.at(group_hosts[0]), b = host_index.at(group_hosts[1]);
  *pair = {std::min(a, b), std::max(a, b)};
  return true;
}

std::map<Pair, std::vector<GroupSample>> Judging::PairGroups(Collective op, uint64_t bytes) const {
  std::map<Pair, std::vector<GroupSample>> out;
  for (const result::PointResult* pt : Points(RanOf(Phase::kPairs), op, bytes)) {
    std::map<int, double> tails = GroupTails(*pt), waits = GroupCpuWaits(*pt);
    for (const result::GroupTime& g : pt->per_group) {
      Pair pair;
      if (!PairOf(GroupHosts(*pt, g), &pair)) continue;
      out[pair].push_back({GroupBusbw(*pt, g), g.p50_us, tails[g.group], pt->point.group_size, waits[g.group]});
    }
  }
  return out;
}

void Judging::CollectPeaks() {
  auto best = [](const std::vector<GroupSample>& samples) {
    std::vector<double> v;
    for (const GroupSample& s : samples) v.push_back(s.busbw);
    return Max(v);
  };
  for (Collective op : profile.ops) {
    for (uint64_t bytes : profile.sizes) {
      std::vector<double> pairs, hosts;
      for (const auto& [pair, samples] : PairGroups(op, bytes)) pairs.push_back(best(samples));
      for (const auto& [host, samples] : HostGroups(op, bytes)) hosts.push_back(best(samples));
      if (std::isfinite(Max(pairs))) peaks.best_pair[{op, bytes}] = Max(pairs);
      if (std::isfinite(Max(hosts))) peaks.best_host[{op, bytes}] = Max(hosts);
    }
  }
}

bool CorrectnessCheck(Judging& j, Phase ph, Collective op, uint64_t bytes,
                      const std::vector<const result::PointResult*>& pts) {
  const std::string what = What(ph, op, bytes);
  if (pts.empty()) {
    j.Add(what, "", false, kNaN, kNaN, "", what + ": no point was measured (fails closed)", ReasonKind::kMissing);
    return false;
  }
  int wrong = 0;
  std::string first_error;
  for (const result::PointResult* pt : pts) {
    if (!pt->correct) {
      ++wrong;
      if (first_error.empty() && !pt->errors.empty()) first_error = pt->errors.front();
    }
  }
  j.Add(what + " correct", "", wrong == 0, wrong, 0, "wrong points",
        wrong == 0 ? "every result checked against its pattern in " + std::to_string(pts.size()) + " point(s)"
                   : std::to_string(wrong) + " of " + std::to_string(pts.size()) + " point(s) computed a wrong result" +
                         (first_error.empty() ? std::string() : ": " + first_error),
        ReasonKind::kError);
  return true;
}

void CorrectnessChecks(Judging& j, Phase ph, const Ran& ran) {
  for (Collective op : j.profile.ops) {
    for (uint64_t bytes : j.profile.sizes) CorrectnessCheck(j, ph, op, bytes, j.Points(ran, op, bytes));
  }
}

void FloorCheck(Judging& j, const std::string& what, const std::string& host, const Floor& f, Collective op,
                double measured, size_t repeats) {
  Limit l = FloorLimit(f, op, j.peaks);
  const std::string name = what + " " + FloorName(f);
  if (!l.missing.empty()) {
    j.Add(name, host, false, measured, kNaN, "GB/s", l.missing, ReasonKind::kMissing);
  } else if (!std::isfinite(measured)) {
    j.Add(name, host, false, kNaN, l.value, "GB/s", "no busbw was measured (fails closed)", ReasonKind::kMissing);
  } else {
    const bool ok = measured >= l.value;
    j.Add(name, host, ok, measured, l.value, "GB/s",
          (host.empty() ? std::string() : host + ": ") + "busbw " + Gbps(measured) + (ok ? " >= " : " < ") + "floor " +
              Gbps(l.value) + " (" + l.what + "), best " + RepeatNote(repeats, j.profile.repeats),
          ReasonKind::kThreshold);
  }
}

void CeilingChecks(Judging& j, const std::string& what, const std::string& host, const Ceiling& c, double p50,
                   size_t p50_n, double tail, size_t tail_n) {
  const std::string prefix = host.empty() ? std::string() : host + ": ";
  if (c.p50_us > 0) {
    const bool ok = std::isfinite(p50) && p50 <= c.p50_us;
    j.Add(what + " latency p50", host, ok, p50, c.p50_us, "us",
          !std::isfinite(p50) ? "no time was measured (fails closed)"
                              : prefix + "median " + Us(p50) + (ok ? " <= " : " > ") + "ceiling " + Us(c.p50_us) +
                                    ", best " + RepeatNote(p50_n, j.profile.repeats),
          std::isfinite(p50) ? ReasonKind::kThreshold : ReasonKind::kMissing);
  }
  if (c.p99_over_p50 > 0) {
    const bool ok = std::isfinite(tail) && tail <= c.p99_over_p50;
    j.Add(what + " p99/p50", host, ok, tail, c.p99_over_p50, "ratio",
          !std::isfinite(tail) ? "no tail was measured (fails closed)"
                               : prefix + "p99/p50 " + Num(tail) + (ok ? " <= " : " > ") + "ceiling " +
                                     Num(c.p99_over_p50) + ", best " + RepeatNote(tail_n, j.profile.repeats),
          std::isfinite(tail) ? ReasonKind::kThreshold : ReasonKind::kMissing);
  }
}

}  // namespace commbench::accept::judge
