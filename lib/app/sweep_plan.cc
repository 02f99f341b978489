#include "lib/app/sweep_plan.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "lib/core/cpu_quota.h"
#include "lib/core/loop_defaults.h"
#include "lib/diagnose/rule.h"
#include "lib/sweep/explain.h"
#include "lib/sweep/planner.h"

namespace commbench::app {
namespace {

// "gloo allreduce 400 B": which series a console line is about.
std::string SeriesName(const Point& p) {
  return p.backend + " " + std::string(Name(p.op)) + " " + std::to_string(p.bytes) + " B";
}

std::string GroupList(const std::vector<Point>& points) {
  std::string out;
  for (const Point& p : points) out += (out.empty() ? "" : ",") + std::to_string(p.groups);
  return out;
}

}  // namespace

Status CheckInjectedRanks(const SweepSpec& spec, const Plan& plan) {
  if (plan.launches.empty()) return OkStatus();
  int world = 0;
  for (const Launch& l : plan.launches) world = std::max(world, l.world);
  for (const auto& [flag, value] :
       {std::pair<std::string, std::string>{"--test-only-slow-rank", spec.test_only_slow_rank},
        {"--test-only-late-rank", spec.test_only_late_rank},
        {"--test-only-hang-rank", spec.test_only_hang_rank}}) {
    if (value.empty()) continue;
    const long long rank = std::strtoll(value.c_str(), nullptr, 10);  // the planner checked RANK:NUMBER
    if (rank >= world) {
      return InvalidArgument(flag + ": rank " + value.substr(0, value.find(':')) + " in '" + value +
                             "' is in no world of this sweep (accepted: a rank from 0 to " + std::to_string(world - 1) +
                             ")");
    }
  }
  return OkStatus();
}

namespace {

// The tightest cgroup CPU quota recorded at the finding's points (0: none).
double QuotaAt(const result::ResultFile& first, const result::Finding& f) {
  double quota = 0;
  for (const auto& p : first.points) {
    const bool on_finding = std::find(f.points.begin(), f.points.end(), p.id) != f.points.end();
    if (on_finding) quota = TighterLimit(quota, p.cpu.cpu_quota);
  }
  return quota;
}

}  // namespace

std::string CpuQuotaNote(const CpuQuota& quota, size_t cores) {
  if (!QuotaBinds(quota.cpus, static_cast<double>(cores))) return "";
  char periods[128];
  std::snprintf(periods, sizeof periods, "%.0f to %.0f of its %.0f ms periods (%.1f-%.1f s)",
                loop_defaults::kQuotaMinPeriods, loop_defaults::kQuotaPeriods, 1e3 * quota.period_s,
                loop_defaults::kQuotaMinPeriods * quota.period_s, loop_defaults::kQuotaPeriods * quota.period_s);
  return "this process's cgroup allows " + FormatCpus(quota.cpus) + " of its " + std::to_string(cores) +
         " cores: the ranks share that quota, and each timed loop spans " + periods;
}

ExplainFollowUp PlanExplainAbs(const result::ResultFile& first, const Plan& planned, const SweepSpec& spec,
                               const std::vector<BackendDescription>& backends, const std::string& affinity) {
  std::map<std::string, Point> by_id;
  for (const Launch& l : planned.launches) {
    for (const Point& p : l.points) by_id[p.Id()] = p;
  }
  std::set<std::string> measured, queued;  // measured: by the sweep, or added as a B side already
  for (const auto& p : first.points) measured.insert(p.id);
  TargetedAbOptions options;
  options.affinity = affinity;
  options.max_group_counts = kAbGroupCounts;
  ExplainFollowUp out;
  FollowUp& follow = out.follow_up;
  follow.rounds = static_cast<int>(std::max<int64_t>(kAbRounds, spec.repeats));
  follow.loop_share = 1.0 / kAbRounds;
  std::vector<Point> to_run;  // A, B at each group count, in the order the first round runs them
  auto queue = [&](const Point& p) {
    if (queued.insert(p.Id()).second) to_run.push_back(p);
  };
  bool any_suspected = false;
  for (const result::Finding& f : first.trailer.diagnosis.findings) {
    if (f.status != result::FindingStatus::kSuspected) continue;
    any_suspected = true;
    const diagnose::Rule* rule = diagnose::FindRule(f.rule);
    Suspect suspect{f.rule, {}, rule != nullptr ? rule->ab_factor().axes : std::vector<std::string>{}};
    for (const std::string& id : f.points) {
      if (by_id.count(id)) suspect.series.push_back(by_id.at(id));
    }
    std::optional<TargetedAb> ab = AbForSuspect(suspect, options);
    const double quota = ab && !ab->factor.cpus.empty() ? QuotaAt(first, f) : 0;  // an A/B that varies the cores
    if (!CpusCanVaryShare(quota)) {
      out.notes.push_back("--explain: " + f.rule + " suspected: the ranks' cgroup CPU quota (" + FormatCpus(quota) +
                          ") caps one core and all cores alike, so no --cpus A/B varies it; it stays suspected");
      continue;
    }
    if (!ab || ab->points.size() < 2) {
      out.notes.push_back("--explain: " + f.rule + " suspected: no A/B varies its factor alone; it stays suspected");
      continue;
    }
    result::ExplainAb record{ab->rule, ab->factor, ab->reason, f.points, {}, {}};
    for (size_t i = 0; i < ab->points.size(); ++i) {
      const Point& a = ab->a_points[i];
      const Point& b = ab->points[i];
      if (measured.insert(b.Id()).second) record.points.push_back(b.Id());
      queue(a);
      queue(b);
      follow.pairs.push_back({follow.record.abs.size(), a.Id(), b.Id(), a.groups});
    }
    out.notes.push_back("--explain: " + f.rule + " suspected in " + SeriesName(suspect.series.front()) + ": runs " +
                        ab->reason + " against the series itself at G=" + GroupList(ab->points) + ", alternating (" +
                        std::to_string(follow.rounds) + " rounds of A B / B A)");
    follow.record.abs.push_back(std::move(record));
  }
  if (!any_suspected) out.notes.push_back("--explain: nothing suspected: no A/B to run");
  if (to_run.empty()) return out;
  // Sides that can share a launch (the same ranks, pinning and cores) run in one, one after the other, so that
  // a round costs no more launches than the B side alone did; those that cannot alternate as launches.
  auto plan = PlanPoints(spec, to_run, backends);
  if (!plan.ok()) {
    out.notes.push_back("warning: --explain: " + plan.status().message());
    follow.pairs.clear();
    return out;
  }
  follow.plan = std::move(*plan);
  return out;
}

}  // namespace commbench::app
