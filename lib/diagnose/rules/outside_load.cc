// Load from outside the ranks: on the points of a growing series, processes outside the run took a share of the
// CPUs the ranks could use (/proc/stat and /proc/[pid]/stat against the run's own processes, recorded per point
// by the host-load monitor). Nothing in the sweep can toggle another process, so this is always suspected; it is
// named with the processes, the CPUs and the points, and ranks first when the load falls on the growing points.
#include "lib/diagnose/rules/outside_load.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "lib/core/ranges.h"
#include "lib/diagnose/rules/common.h"
#include "lib/diagnose/rules/rules.h"

namespace commbench {
namespace diagnose {
namespace {

// A point belongs to the growth when it is this much above the series' first point.
constexpr double kGrowingAbove = 1.1;

// The CPUs the point's ranks could use: its --cpus, else the run's affinity; empty means every CPU.
std::vector<int> RankCpus(const AnalysisInput& in, const PointData& p) {
  auto cpus = ParseCpuList(p.point.cpus.empty() ? in.affinity : p.point.cpus, "cpus");
  return cpus.ok() ? *cpus : std::vector<int>{};
}

// Outside CPU seconds over the point's window on the CPUs its ranks could use. Per process, a sampling interval's
// time is put on the CPU it was last seen on, which can overstate one CPU; what /proc/stat says those CPUs were
// busy beyond the ranks' own rusage bounds it.
double OutsideOnRankCpus(const AnalysisInput& in, const PointData& p) {
  if (!p.host_load) return 0;
  const std::vector<int> cpus = RankCpus(in, p);
  double outside = 0, busy = 0;
  for (const result::CpuLoad& c : p.host_load->per_cpu) {
    if (!cpus.empty() && std::find(cpus.begin(), cpus.end(), c.cpu) == cpus.end()) continue;
    outside += c.outside_s;
    busy += c.busy_s;
  }
  if (cpus.empty() && p.host_load->per_cpu.empty())
    outside = busy = p.host_load->outside_cpu_s + p.host_load->ranks_cpu_s;
  return std::max(0.0, std::min(outside, busy - p.host_load->ranks_cpu_s));
}

// Outside CPUs (on the ranks' CPUs) over the point's window.
double OutsideCpus(const AnalysisInput& in, const PointData& p) {
  return p.host_load && p.host_load->window_s > 0 ? OutsideOnRankCpus(in, p) / p.host_load->window_s : 0;
}

// How many CPUs the ranks of `p` could use.
double RankCpuCount(const AnalysisInput& in, const PointData& p) {
  const std::vector<int> cpus = RankCpus(in, p);
  return cpus.empty() ? std::max(p.cores_available, 1.0) : static_cast<double>(cpus.size());
}

// CrowdSlowdown at point `p`: its ranks that run at once (one group when groups take turns) on its CPUs.
double CrowdSlowdownAt(const AnalysisInput& in, const PointData& p) {
  const int ranks = p.point.concurrency == Concurrency::kSequential ? p.group_size : p.world;
  return CrowdSlowdown(ranks, RankCpuCount(in, p), OutsideCpus(in, p), p.point.pin != Pin::kNone);
}

// How much slower the ranks of `p` can be than those of `first` for the CPU time that outside processes took from
// them. An upper bound (ranks that only compute), the larger of two: the load rose, (C - load at first) /
// (C - load at p) with C the ranks' CPUs; or the load, even a steady one, crowds p's ranks more than first's
// (one busy process on 2 cores leaves one rank a core of its own, but two ranks share what it leaves them).
double LoadSlowdown(const AnalysisInput& in, const PointData& first, const PointData& p) {
  const double c = RankCpuCount(in, p);
  const double at_first = std::min(OutsideCpus(in, first), c - 0.05), at_p = std::min(OutsideCpus(in, p), c - 0.05);
  return std::max((c - at_first) / (c - at_p), CrowdSlowdownAt(in, p) / CrowdSlowdownAt(in, first));
}

// The ranks' own reading of CPU taken from them (cpu.runqueue_wait_us_per_iter): how much longer per op the
// ranks at point i waited for a CPU, runnable on a run queue, than at the first point (us; 0 where either did not
// record it). Only where the ranks do not outnumber the cores they may use: then that wait was other tasks' use of
// those cores (processes, kernel threads, the harness), not the ranks' own oversubscription. It sees bursts of a
// few ms that the host monitor's 10 ms ticks miss.
double WaitRiseUs(const AnalysisInput& in, const SeriesData& s, size_t i) {
  const PointData& first = in.First(s);
  const PointData& p = in.Point(s, i);
  if (i == 0 || first.runqueue_wait_us_per_op < 0 || p.runqueue_wait_us_per_op < 0) return 0;
  if (RanksPerCore(in, s, p) > 1.0) return 0;
  return std::max(0.0, p.runqueue_wait_us_per_op - first.runqueue_wait_us_per_op);
}

// The wait rose by at least half of point i's growth over the first point (both in us per op: a wait adds to the
// op it falls in).
bool WaitExplainsGrowth(const AnalysisInput& in, const SeriesData& s, size_t i) {
  const double growth_us = in.Point(s, i).p50_us - in.First(s).p50_us;
  return growth_us > 0 && WaitRiseUs(in, s, i) >= 0.5 * growth_us;
}

// The point of `s` whose growth the wait explains most (by the share of its growth); -1 when none.
int MostWaitExplained(const AnalysisInput& in, const SeriesData& s) {
  int best = -1;
  double best_share = 0;
  for (size_t i = 1; i < s.points.size(); ++i) {
    if (!WaitExplainsGrowth(in, s, i)) continue;
    const double share = WaitRiseUs(in, s, i) / (in.Point(s, i).p50_us - in.First(s).p50_us);
    if (share > best_share) best = static_cast<int>(i), best_share = share;
  }
  return best;
}

// "the ranks waited for a CPU 36.7 us per op at G=2 against 0.3 us at G=1 (up to 99% of the growth there), ..."
// Per op is an upper bound: the timed loop also copies each op's input outside the clock, and a wait there does
// not slow the op.
std::string WaitSentence(const AnalysisInput& in, const SeriesData& s, size_t i) {
  const PointData& first = in.First(s);
  const PointData& p = in.Point(s, i);
  const double share = WaitRiseUs(in, s, i) / (p.p50_us - first.p50_us);
  const int ranks = p.point.concurrency == Concurrency::kSequential ? p.group_size : p.world;
  return "the ranks waited for a CPU (runnable, on a run queue) " + Fmt(p.runqueue_wait_us_per_op) +
         " us per op at G=" + std::to_string(p.groups) + " against " + Fmt(first.runqueue_wait_us_per_op) +
         " us at G=" + std::to_string(first.groups) + " (up to " + Fmt(100 * std::min(share, 1.0), 0) +
         "% of the growth there), though its " + std::to_string(ranks) + " ranks do not outnumber the " +
         Fmt(CoresForRanks(in, s), 0) + " cores they may use: other tasks held those cores";
}

// The outside load over a set of points: per process, and in all.
struct OutsideLoad {
  double window_s = 0, outside_s = 0, busy_s = 0, ranks_s = 0;
  double unattributed_s = 0;  // on the ranks' CPUs: work no process seen in two samples accounts for
  std::map<int, result::OutsideProcess> processes;       // by pid, summed over the points
  std::map<int, std::pair<double, std::set<int>>> seen;  // by pid: the windows (s) and group counts it ran in
  std::vector<const PointData*> points;

  void Add(const AnalysisInput& in, const PointData& p) {
    const result::HostLoad& h = *p.host_load;
    points.push_back(&p);
    window_s += h.window_s;
    outside_s += OutsideOnRankCpus(in, p);
    busy_s += h.cpu_busy_s;
    ranks_s += h.ranks_cpu_s;
    const std::vector<int> rank_cpus = RankCpus(in, p);
    double unattributed = h.per_cpu.empty() ? h.unattributed_cpu_s : 0;
    for (const result::CpuLoad& c : h.per_cpu) {
      if (rank_cpus.empty() || std::find(rank_cpus.begin(), rank_cpus.end(), c.cpu) != rank_cpus.end())
        unattributed += c.unattributed_s;
    }
    unattributed_s += std::min(unattributed, OutsideOnRankCpus(in, p));
    for (const result::OutsideProcess& o : h.top) {
      // Only processes seen on a CPU the ranks could use took time from them.
      const bool on_rank_cpus = rank_cpus.empty() || std::any_of(o.cpus.begin(), o.cpus.end(), [&](int c) {
                                  return std::find(rank_cpus.begin(), rank_cpus.end(), c) != rank_cpus.end();
                                });
      if (!on_rank_cpus) continue;
      result::OutsideProcess& sum = processes[o.pid];
      sum.pid = o.pid;
      sum.comm = o.comm;
      sum.cpu_s += o.cpu_s;
      sum.children_cpu_s += o.children_cpu_s;
      std::set<int> cpus(sum.cpus.begin(), sum.cpus.end());
      cpus.insert(o.cpus.begin(), o.cpus.end());
      sum.cpus.assign(cpus.begin(), cpus.end());
      seen[o.pid].first += h.window_s;
      seen[o.pid].second.insert(p.groups);
    }
  }
  double Share() const { return window_s > 0 ? outside_s / window_s : 0; }
  double UnattributedShare() const { return window_s > 0 ? unattributed_s / window_s : 0; }
  // Most of the outside time was short-lived processes no sample named: more than any named process took.
  bool MostlyUnattributed() const { return unattributed_s > 0 && unattributed_s >= Top().cpu_s; }
  result::OutsideProcess Top() const {
    result::OutsideProcess top;
    for (const auto& [pid, p] : processes) {
      if (p.cpu_s > top.cpu_s) top = p;
    }
    return top;
  }
  // The top process's CPU time over the windows of the points it ran in.
  double TopShare() const {
    auto it = seen.find(Top().pid);
    return it == seen.end() || it->second.first <= 0 ? 0 : Top().cpu_s / it->second.first;
  }
  // "G=2,3": the points' group counts, or those of the top process's points.
  std::string Groups(bool top_only = false) const {
    std::set<int> groups;
    if (top_only && seen.count(Top().pid)) {
      groups = seen.at(Top().pid).second;
    } else {
      for (const PointData* p : points) groups.insert(p->groups);
    }
    std::string g;
    for (int n : groups) g += (g.empty() ? "G=" : ",") + std::to_string(n);
    return g;
  }
};

std::string Percent(double cpus) { return Fmt(100 * cpus, 0) + "%"; }

// "bash (pid 42)", with ", with the short-lived processes it started" when most of its time was children it
// reaped between two samples (a shell loop's jobs, make's compilers).
std::string Named(const result::OutsideProcess& p) {
  return p.comm + " (pid " + std::to_string(p.pid) + ")" +
         (p.children_cpu_s >= 0.5 * p.cpu_s && p.children_cpu_s > 0 ? ", with the short-lived processes it started"
                                                                    : "");
}

// "another process, stress (pid 42), used 93% of CPU 0 during points G=2,3"; when short-lived processes no sample
// could name took more than any named one, "short-lived processes outside the run (...) used 30% of a CPU ...".
std::string ProcessSentence(const OutsideLoad& load) {
  const result::OutsideProcess top = load.Top();
  if (load.MostlyUnattributed()) {
    std::string s =
        "short-lived processes outside the run (each too brief for two of the monitor's samples: "
        "compilers, sibling tests, cron jobs) used " +
        Percent(load.UnattributedShare()) + " of a CPU on the ranks' CPUs during points " + load.Groups() +
        ", by the CPUs' busy time less the run's own";
    if (top.pid) s += "; the largest named process, " + Named(top) + ", used " + Percent(load.TopShare());
    return s;
  }
  if (top.pid == 0)
    return "processes outside the run used " + Percent(load.Share()) + " of a CPU during points " + load.Groups();
  const std::string where =
      top.cpus.size() == 1 ? "CPU " + std::to_string(top.cpus[0]) : "a CPU (on CPUs " + FormatCpuList(top.cpus) + ")";
  return "another process, " + Named(top) + ", used " + Percent(load.TopShare()) + " of " + where + " during points " +
         load.Groups(/*top_only=*/true);
}

class OutsideLoadRule : public Rule {
 public:
  std::string name() const override { return "outside_load"; }
  std::string description() const override {
    return "processes outside the run took CPU time on the ranks' CPUs while the growing points ran";
  }

  // Every growing series, including those a confirmed finding explains: the load may be what its A/B measured.
  std::optional<Finding> Evaluate(const AnalysisInput& in) const override {
    std::vector<Finding> out;
    for (size_t a = 0; a < in.series.size(); ++a) {
      if (!in.series[a].fit.grows) continue;
      std::optional<Finding> f = Build(in, static_cast<int>(a));
      if (f) out.push_back(std::move(*f));
    }
    return PickBest(in, std::move(out));
  }

 private:
  static std::optional<Finding> Build(const AnalysisInput& in, int a) {
    const SeriesData& s = in.series[static_cast<size_t>(a)];
    OutsideLoad load;
    int growing = 0, loaded_growing = 0;
    double worst_slowdown = 1, growth_there = 1;  // at the point where the load explains the most
    for (size_t i = 0; i < s.points.size(); ++i) {
      const PointData& p = in.Point(s, i);
      const bool grown = i > 0 && p.p50_us > kGrowingAbove * in.First(s).p50_us;
      growing += grown;
      if (grown && LoadExplainsGrowth(in, s, i)) {
        ++loaded_growing;
        if (LoadSlowdown(in, in.First(s), p) > worst_slowdown) {
          worst_slowdown = LoadSlowdown(in, in.First(s), p);
          growth_there = p.p50_us / in.First(s).p50_us;
        }
      }
      if (HasOutsideLoad(in, p)) load.Add(in, p);
    }
    // Nothing when the load did not rise where the series grew, or by too little to matter next to the growth.
    if (loaded_growing == 0) return std::nullopt;
    const double coincidence = static_cast<double>(loaded_growing) / growing;
    const int waited = MostWaitExplained(in, s);

    Finding f;
    f.rule = "outside_load";
    f.series = a;
    const result::OutsideProcess top = load.Top();
    f.cause = "load from outside the ranks" + (load.MostlyUnattributed() ? std::string(": short-lived processes")
                                               : top.pid ? ": " + top.comm + " (pid " + std::to_string(top.pid) + ")"
                                                         : "");
    // Ranks first when the load is on every growing point: then nothing else can be told from it.
    f.strength = 0.5 + 0.5 * coincidence;
    if (!load.points.empty()) {
      f.summary = Describe(s) + ": " + ProcessSentence(load) + " (outside processes took " + Percent(load.Share()) +
                  " of a CPU on the ranks' CPUs during points " + load.Groups() + ", " +
                  std::to_string(loaded_growing) + " of the " + std::to_string(growing) +
                  " points where the series grew). The series grows " + GrowthSentence(in, s) +
                  "; the CPU time taken from the ranks can slow them up to " + Fmt(worst_slowdown, 1) +
                  "x where they are " + Fmt(growth_there, 1) +
                  "x slower than at the first point: that growth may be the outside load's, not the ranks'.";
      if (waited > 0) f.summary += " The ranks' own reading agrees: " + WaitSentence(in, s, waited) + ".";
    } else {
      f.summary = Describe(s) + ": " + WaitSentence(in, s, waited) +
                  ". By the host monitor's 10 ms ticks no process outside the run took " + Percent(kMinOutsideCpus) +
                  " of a CPU: short bursts (kernel threads, the harness, brief processes). The series grows " +
                  GrowthSentence(in, s) + ": that growth may be theirs, not the ranks'.";
    }
    f.evidence.push_back({"outside CPU on the ranks' CPUs during those points", 100 * load.Share(), "% of a CPU"});
    if (load.unattributed_s > 0)
      f.evidence.push_back(
          {"of which short-lived processes no sample named", 100 * load.UnattributedShare(), "% of a CPU"});
    if (top.pid) {
      f.evidence.push_back({top.comm + " (pid " + std::to_string(top.pid) + ")", 100 * load.TopShare(), "% of a CPU"});
      if (top.cpus.size() == 1) f.evidence.push_back({"CPU it ran on", static_cast<double>(top.cpus[0]), "cpu"});
    }
    f.evidence.push_back({"growing points the outside load can explain", coincidence, "ratio"});
    if (!load.points.empty()) {
      f.evidence.push_back({"slowdown the outside load can explain", worst_slowdown, "x"});
      f.evidence.push_back({"growth observed there", growth_there, "x"});
    }
    f.evidence.push_back({"host CPU busy during those points", load.busy_s, "s"});
    f.evidence.push_back({"ranks' own CPU during those points", load.ranks_s, "s"});
    if (waited > 0) {
      const PointData& p = in.Point(s, static_cast<size_t>(waited));
      f.evidence.push_back(
          {"ranks' wait for a CPU per op at G=" + std::to_string(p.groups), p.runqueue_wait_us_per_op, "us"});
      f.evidence.push_back({"ranks' wait for a CPU per op at G=" + std::to_string(in.First(s).groups),
                            in.First(s).runqueue_wait_us_per_op, "us"});
      f.evidence.push_back({"growth per op there", p.p50_us - in.First(s).p50_us, "us"});
    }
    AddGrowthEvidence(in, s, &f);
    f.fix = load.points.empty()
                ? "Leave the system a core the ranks do not use (--cpus for the ranks, or fewer ranks per host), and "
                  "find what runs beside them (perf sched record, pidstat -t 1) to stop it or keep it off their cores."
                : "Sweep again with " +
                      (load.MostlyUnattributed() ? std::string("the short-lived work (builds, tests, cron jobs)")
                       : top.pid                 ? top.comm + " (pid " + std::to_string(top.pid) + ")"
                                                 : "the other work") +
                      " stopped or kept off the ranks' CPUs (taskset or a cgroup for it, or --cpus for the ranks).";
    ApplyAb(in, std::nullopt, "", in.ConfirmCommand({}), &f);  // no A/B can toggle another process
    return f;
  }
};

}  // namespace

double CrowdSlowdown(int ranks, double cpus, double outside, bool pinned) {
  const double r = std::max(ranks, 1);
  outside = std::min(outside, cpus - 0.05);
  // Unpinned ranks that outnumber the CPUs: the scheduler spreads them and the load over the CPUs alike.
  if (!pinned && r > cpus) return std::max(1.0, r / (cpus - outside)) / (r / cpus);
  // Otherwise no rank can get away from the load: it takes the CPUs without a rank first, then the rest of it goes
  // to one of the least crowded CPUs (all of it to one: an upper bound), whose k ranks get what it leaves them.
  // Not capped at a fair share: a spinner at nice -10 in its own autogroup took 91 % of a CPU it shared with a
  // pinned busy process at nice 0.
  const double busiest = std::ceil(r / cpus), k = std::max(std::floor(r / cpus), 1.0);
  const double left_over = std::min(outside - std::max(cpus - r, 0.0), 0.95);
  if (left_over <= 0) return 1;
  return std::max(busiest, k / (1 - left_over)) / busiest;
}

bool HasOutsideLoad(const AnalysisInput& in, const PointData& p) {
  return p.host_load && p.host_load->window_s > 0 &&
         OutsideOnRankCpus(in, p) >= kMinOutsideCpus * p.host_load->window_s;
}

bool LoadExplainsGrowth(const AnalysisInput& in, const SeriesData& s, size_t i) {
  const PointData& first = in.First(s);
  const PointData& p = in.Point(s, i);
  if (i > 0 && WaitExplainsGrowth(in, s, i)) return true;
  if (i == 0 || first.p50_us <= 0 || !HasOutsideLoad(in, p)) return false;
  const double growth = p.p50_us / first.p50_us;
  // The load explains at least half the growth on a log scale (a 4x growth needs a 2x possible slowdown), or left
  // the ranks a third or less of the CPU they had: ranks that block and wake then wait a slice of the busy process
  // at every wake-up, far more than the bound (plant (c): a 7x bound against 74x growth).
  const double slowdown = LoadSlowdown(in, first, p);
  return growth > 1 && (slowdown >= 3 || std::log(slowdown) >= 0.5 * std::log(growth));
}

namespace {

// The load can explain the growth of a series on the B side of the finding's A/Bs: that side's loop was slowed
// by another process (a spinner on the second core of a `--cpus 0-1` side leaves its two ranks one core), so
// whatever the A/B concluded, it may have measured the load and not the factor it varied.
bool AbSideGrowthIsLoad(const AnalysisInput& in, const Finding& f) {
  std::set<std::string> ab_ids(f.ab_points.begin(), f.ab_points.end());
  for (size_t k = 0; k < in.series.size(); ++k) {
    if (static_cast<int>(k) == f.series) continue;
    const SeriesData& s = in.series[k];
    bool on_b_side = false;
    for (size_t i = 0; i < s.points.size() && !on_b_side; ++i) on_b_side = ab_ids.count(in.Point(s, i).id) > 0;
    if (!on_b_side) continue;
    for (size_t i = 0; i < s.points.size(); ++i) {
      if (LoadExplainsGrowth(in, s, i)) return true;
    }
  }
  return false;
}

}  // namespace

void NoteOutsideLoad(const AnalysisInput& in, std::vector<Finding>* findings) {
  std::map<std::string, const PointData*> by_id;
  for (const PointData& p : in.points) by_id[p.id] = &p;
  for (Finding& f : *findings) {
    if (f.rule == "outside_load") continue;
    OutsideLoad load;
    std::set<std::string> ids(f.points.begin(), f.points.end());
    ids.insert(f.ab_points.begin(), f.ab_points.end());
    for (const std::string& id : ids) {
      auto it = by_id.find(id);
      if (it != by_id.end() && HasOutsideLoad(in, *it->second)) load.Add(in, *it->second);
    }
    bool explains = false;  // the load rose enough along the finding's own series to explain its growth
    int waited = -1;        // the point whose growth the ranks' wait for a CPU explains most
    if (f.series >= 0 && static_cast<size_t>(f.series) < in.series.size()) {
      const SeriesData& s = in.series[static_cast<size_t>(f.series)];
      for (size_t i = 0; i < s.points.size(); ++i) explains = explains || LoadExplainsGrowth(in, s, i);
      waited = MostWaitExplained(in, s);
    }
    const bool ab_side_loaded = AbSideGrowthIsLoad(in, f);
    if (load.points.empty() && waited < 0) continue;
    const std::string what =
        load.points.empty() ? WaitSentence(in, in.series[static_cast<size_t>(f.series)], static_cast<size_t>(waited))
                            : ProcessSentence(load) + " (" + std::to_string(load.points.size()) + " of the " +
                                  std::to_string(ids.size()) + " points this rests on had outside load)";
    if (ab_side_loaded && f.status == FindingStatus::kRuledOut) {
      f.status = FindingStatus::kSuspected;
      f.summary += " Not ruled out: " + what + ", so the A/B may have measured that load (see outside_load).";
      if (f.confirm_command.empty()) f.confirm_command = in.ConfirmCommand({});
    } else if (!explains && !ab_side_loaded) {
      f.summary += " Note: " + what + ", about as much where it grew as where it started: too little to explain it.";
    } else if (f.status == FindingStatus::kConfirmed) {
      f.status = FindingStatus::kSuspected;
      f.summary += " Not confirmed: " + what + ", so the A/B may have measured that load (see outside_load).";
      if (f.confirm_command.empty()) f.confirm_command = in.ConfirmCommand({});
    } else if (f.status == FindingStatus::kRuledOut) {
      f.summary += " Note: " + what + ", so the A/B may have measured that load (see outside_load).";
    } else {
      f.summary += " Note: " + what + ": part of the growth may be theirs (see outside_load).";
    }
  }
}

std::string OutsideLoadOnPoints(const AnalysisInput& in) {
  OutsideLoad load;
  for (const PointData& p : in.points) {
    if (HasOutsideLoad(in, p)) load.Add(in, p);
  }
  if (load.points.empty()) return "";
  return ProcessSentence(load) + " (" + std::to_string(load.points.size()) + " of the " +
         std::to_string(in.points.size()) + " points)";
}

std::unique_ptr<Rule> MakeOutsideLoadRule() { return std::make_unique<OutsideLoadRule>(); }

}  // namespace diagnose
}  // namespace commbench
