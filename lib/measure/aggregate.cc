#include "lib/measure/aggregate.h"

#include <algorithm>
#include <climits>
#include <map>
#include <numeric>
#include <optional>
#include <string>
#include <utility>

#include "lib/core/cpu_quota.h"
#include "lib/measure/arrival.h"
#include "lib/measure/traffic_record.h"
#include "lib/stats/bandwidth.h"
#include "lib/stats/summary.h"

namespace commbench {

using result::PointResult;
using result::RankSamples;

namespace {

// Each group's own per-iteration max (its ranks' times, iteration by iteration): per_group's figures, which compare
// groups op by op (their means overstate the loop's cost, see HeadlineSeries).
std::vector<std::vector<double>> GroupSeries(const Point& point, const std::vector<RankSamples>& ranks) {
  std::vector<std::vector<double>> series;
  for (int g = 0; g < point.groups; ++g) {
    std::vector<std::vector<double>> members;
    for (size_t r = 0; r < ranks.size(); ++r) {
      if (static_cast<int>(r) / point.group_size == g) members.push_back(ranks[r].samples_us);
    }
    series.push_back(ElementwiseMax(members));
  }
  return series;
}

// The headline series: what a loop of these operations feels, op by op, so that its mean is the loop's cost
// per op. Two sums of per-iteration times would overstate it, both measured on scenario A (docs/result-format.md):
// - a max per iteration index across concurrent groups: the groups are not synchronised (iteration k of group 0
//   and of group 5 run at different moments), so it picks each index's worst group and behaves like a high
//   percentile of one group's times, a wait nobody has;
// - a max per index across the ranks of one group: a rank descheduled in iteration k shows in its own iteration k
//   and in its peer's next one, which waits for it, so one stall counts twice.
// A rank's own times sum to its loop's time. The headline is the series of the rank whose loop took longest (the
// largest mean), in the group that therefore finishes last. Groups taking turns (-1) pool each group's slowest
// rank: each is what that group's loop felt in its turn.
struct Headline {
  std::vector<double> samples;
  int group = -1, rank = -1;
};

// Index of the rank with the largest mean time among ranks[begin, end); -1 when none has samples.
int SlowestRankByMean(const std::vector<RankSamples>& ranks, size_t begin, size_t end) {
  int slowest = -1;
  double slowest_mean = -1;
  for (size_t r = begin; r < end && r < ranks.size(); ++r) {
    const std::vector<double>& t = ranks[r].samples_us;
    if (t.empty()) continue;
    const double mean = std::accumulate(t.begin(), t.end(), 0.0) / static_cast<double>(t.size());
    if (mean > slowest_mean) {
      slowest_mean = mean;
      slowest = static_cast<int>(r);
    }
  }
  return slowest;
}

Headline HeadlineSeries(const Point& point, const std::vector<RankSamples>& ranks) {
  Headline h;
  if (point.concurrency == Concurrency::kSequential) {
    const size_t k = static_cast<size_t>(std::max(point.group_size, 1));
    for (size_t begin = 0; begin < ranks.size(); begin += k) {
      const int r = SlowestRankByMean(ranks, begin, begin + k);
      if (r >= 0) h.samples.insert(h.samples.end(), ranks[r].samples_us.begin(), ranks[r].samples_us.end());
    }
    return h;
  }
  h.rank = SlowestRankByMean(ranks, 0, ranks.size());
  if (h.rank < 0) return h;
  h.group = h.rank / std::max(point.group_size, 1);
  h.samples = ranks[static_cast<size_t>(h.rank)].samples_us;
  return h;
}

// A group's timed loop per iteration: from its first rank's start to its last rank's end, over the iterations.
double GroupLoopUsPerOp(const Point& point, const std::vector<RankSamples>& ranks, int group) {
  int64_t start = INT64_MAX, end = INT64_MIN;
  size_t iters = 0;
  for (size_t r = 0; r < ranks.size(); ++r) {
    if (static_cast<int>(r) / point.group_size != group) continue;
    start = std::min(start, ranks[r].start_ns);
    end = std::max(end, ranks[r].end_ns);
    iters = std::max(iters, ranks[r].samples_us.size());
  }
  if (iters == 0 || end < start) return 0;
  return static_cast<double>(end - start) * 1e-3 / static_cast<double>(iters);
}

double LoopUsPerOp(const Point& point, const std::vector<RankSamples>& ranks, int headline_group) {
  if (headline_group >= 0) return GroupLoopUsPerOp(point, ranks, headline_group);
  double sum = 0;
  for (int g = 0; g < point.groups; ++g) sum += GroupLoopUsPerOp(point, ranks, g);
  return point.groups > 0 ? sum / point.groups : 0;
}

void AddRanks(const std::vector<RankSamples>& ranks, const AggregateOptions& options, PointResult* out) {
  const bool any_traffic =
      std::any_of(ranks.begin(), ranks.end(), [](const RankSamples& r) { return r.traffic.has_value(); });
  const std::optional<traffic::Model> model = any_traffic ? TrafficModelOf(out->point) : std::nullopt;  // once a point
  for (const RankSamples& r : ranks) {
    out->iters = std::max<int64_t>(out->iters, static_cast<int64_t>(r.samples_us.size()));
    out->checked_iters = &r == &ranks.front() ? r.checked_iters : std::min(out->checked_iters, r.checked_iters);
    if (!r.correct) {
      out->correct = false;
      out->errors.push_back("rank " + std::to_string(r.rank) + ": " + r.error);
    }
    result::RankTime t;
    t.rank = r.rank;
    t.group = r.group;
    t.group_rank = r.group_rank;
    t.pid = r.pid;
    t.process_rank = r.process_rank;
    t.host = r.host;
    t.address = r.address;
    t.transport = r.transport;
    t.time_us = Summarize(r.samples_us);
    t.cpu_user_s = r.cpu_user_s;
    t.cpu_sys_s = r.cpu_sys_s;
    t.vol_ctx = r.vol_ctx;
    t.invol_ctx = r.invol_ctx;
    t.runqueue_wait_s = r.runqueue_wait_s;
    t.migrations = r.migrations;
    t.affinity = r.affinity;
    t.setup_s = r.setup_s;
    t.checked_iters = r.checked_iters;
    t.traffic = r.traffic;
    if (t.traffic && model) AddTrafficModel(*model, r.group_rank, &*t.traffic);
    t.wall_s = static_cast<double>(r.end_ns - r.start_ns) * 1e-9;
    out->per_rank.push_back(std::move(t));
    const size_t keep = std::min(r.samples_us.size(), static_cast<size_t>(std::max<int64_t>(options.sample_cap, 0)));
    out->samples_us.per_rank.emplace_back(r.samples_us.begin(), r.samples_us.begin() + static_cast<long>(keep));
  }
  out->samples_us.cap = options.sample_cap;
}

void AddCpu(const std::vector<RankSamples>& ranks, const AggregateOptions& options, PointResult* out) {
  double cpu_total = 0, vol = 0, invol = 0;
  int64_t start_min = INT64_MAX, end_max = INT64_MIN;
  for (const RankSamples& r : ranks) {
    cpu_total += r.cpu_user_s + r.cpu_sys_s;
    vol += r.vol_ctx;
    invol += r.invol_ctx;
    start_min = std::min(start_min, r.start_ns);
    end_max = std::max(end_max, r.end_ns);
  }
  out->wall_s = ranks.empty() ? 0 : static_cast<double>(end_max - start_min) * 1e-9;
  for (const RankSamples& r : ranks) {
    out->cpu.cpu_quota = TighterLimit(out->cpu.cpu_quota, r.cpu_quota);
    out->cpu.throttled_share = std::max(out->cpu.throttled_share, r.throttled_share);
  }
  // Saturation and ranks per core against what the ranks may use: a quota below the affinity's cores binds first.
  const double cores = TighterLimit(std::max(options.cores_available, 1), out->cpu.cpu_quota);
  const double per_iter =
      out->iters ? 1.0 / static_cast<double>(out->iters) / std::max<double>(static_cast<double>(ranks.size()), 1) : 0;
  out->cpu.cpu_s_total = cpu_total;
  out->cpu.cores_available = options.cores_available;
  out->cpu.saturation = out->wall_s > 0 ? cpu_total / (cores * out->wall_s) : 0.0;
  out->cpu.threads_per_core = static_cast<double>(ranks.size()) / cores;
  out->cpu.vol_ctx_per_iter = vol * per_iter;
  out->cpu.invol_ctx_per_iter = invol * per_iter;
  for (const RankSamples& r : ranks) {
    if (r.runqueue_wait_s < 0 || r.samples_us.empty()) continue;
    const double us_per_iter = 1e6 * r.runqueue_wait_s / static_cast<double>(r.samples_us.size());
    out->cpu.runqueue_wait_us_per_iter = std::max(out->cpu.runqueue_wait_us_per_iter, us_per_iter);
  }
  for (const RankSamples& r : ranks) out->cpu.migrations = std::max(out->cpu.migrations, r.migrations);
}

// Per group: the group's own per-iteration max; the slowest group and rank by median, and the start skew.
void AddGroupsAndSkew(const std::vector<RankSamples>& ranks, const std::vector<std::vector<double>>& group_series,
                      PointResult* out) {
  double slowest_group_p50 = -1, slowest_rank_p50 = -1;
  for (size_t g = 0; g < group_series.size(); ++g) {
    Summary s = Summarize(group_series[g]);
    result::GroupTime t;
    t.group = static_cast<int>(g);
    t.p50_us = s.p50;
    t.mean_us = s.mean;
    for (const RankSamples& r : ranks) {
      const bool mine = r.group == static_cast<int>(g) && !r.address.empty();
      if (mine && std::find(t.hosts.begin(), t.hosts.end(), r.address) == t.hosts.end()) t.hosts.push_back(r.address);
    }
    out->per_group.push_back(std::move(t));
    if (s.p50 > slowest_group_p50) {
      slowest_group_p50 = s.p50;
      out->skew.slowest_group = static_cast<int>(g);
    }
  }
  for (size_t r = 0; r < out->per_rank.size(); ++r) {
    // Peers of a slow rank wait for it, so their medians rise too: the group is the reliable signal, the rank
    // a hint.
    if (out->per_rank[r].time_us.p50 > slowest_rank_p50) {
      slowest_rank_p50 = out->per_rank[r].time_us.p50;
      out->skew.slowest_rank = static_cast<int>(r);
    }
  }
  if (ranks.empty()) return;
  auto [first, last] = std::minmax_element(
      ranks.begin(), ranks.end(), [](const RankSamples& a, const RankSamples& b) { return a.start_ns < b.start_ns; });
  out->skew.start_skew_us = static_cast<double>(last->start_ns - first->start_ns) * 1e-3;
}

// The point's phases as the headline rank saw them (rank 0 when the headline pools the groups' turns): one rank's
// spans tile its time, and the launch's first point adds the spawn before it. Pooled, timed is the pooled
// headline's, and the turns of the other groups, which rank 0 waited out in barriers, leave its barriers.
void AddPhases(const std::vector<RankSamples>& ranks, const Headline& headline, const AggregateOptions& options,
               PointResult* out) {
  using result::Phase;
  const size_t which = headline.rank >= 0 ? static_cast<size_t>(headline.rank) : 0;
  if (which >= ranks.size() || ranks[which].phases.end_ns == 0) return;  // a rank that records no phases
  const result::RankPhases& rank = ranks[which].phases;
  result::PhaseSeconds p = rank.seconds;
  if (options.launch_start_ns > 0 && rank.begin_ns > options.launch_start_ns) {
    p[Phase::kSpawn] = static_cast<double>(rank.begin_ns - options.launch_start_ns) * 1e-9;
  }
  if (headline.rank < 0) {
    const double pooled_s = std::accumulate(headline.samples.begin(), headline.samples.end(), 0.0) * 1e-6;
    p[Phase::kBarriers] = std::max(p[Phase::kBarriers] - (pooled_s - p[Phase::kTimed]), 0.0);
    p[Phase::kTimed] = pooled_s;
  }
  out->phases = p;
}

// --- Transfer, arrival and busy time (issue 52) ---
// Each group's transfer and arrival skew, iteration by iteration; the point's are the headline group's (every
// group's in turn when they take turns, as the headline pools them), each group's medians in per_group.
void AddArrivals(const Point& point, const std::vector<RankSamples>& ranks, const Headline& headline,
                 PointResult* out) {
  if (ranks.empty()) return;
  result::Arrival arrival;
  std::vector<double> transfer, skew;
  for (int g = 0; g < point.groups; ++g) {
    std::vector<const RankSamples*> members;
    for (size_t r = 0; r < ranks.size(); ++r) {
      if (static_cast<int>(r) / point.group_size == g) members.push_back(&ranks[r]);
    }
    if (members.empty()) continue;
    const GroupArrivals a = ComputeGroupArrivals(members);
    if (a.method == result::SkewMethod::kDurations) arrival.method = a.method;  // any group's fallback says so
    if (static_cast<size_t>(g) < out->per_group.size() && !a.transfer_us.empty()) {
      out->per_group[static_cast<size_t>(g)].transfer_p50_us = Summarize(a.transfer_us).p50;
      out->per_group[static_cast<size_t>(g)].skew_p50_us = Summarize(a.skew_us).p50;
      if (a.last_member >= 0) {
        out->per_group[static_cast<size_t>(g)].last_arrival_rank = members[static_cast<size_t>(a.last_member)]->rank;
        out->per_group[static_cast<size_t>(g)].last_arrival_share = a.last_share;
      }
    }
    if (headline.group >= 0 && g != headline.group) continue;
    transfer.insert(transfer.end(), a.transfer_us.begin(), a.transfer_us.end());
    skew.insert(skew.end(), a.skew_us.begin(), a.skew_us.end());
  }
  if (transfer.empty()) return;
  arrival.transfer_us = Summarize(transfer);
  arrival.skew_us = Summarize(skew);
  out->arrival = arrival;
}

// Bus bytes of every group's operations over the time any of them was inside one (result::BusyTime).
void AddBusyTime(const Point& point, const std::vector<RankSamples>& ranks, PointResult* out) {
  const std::optional<double> union_s = BusyUnionS(ranks);
  if (!union_s || *union_s <= 0) return;
  double ops = 0;  // every group's timed iterations
  for (size_t r = 0; r < ranks.size(); r += static_cast<size_t>(std::max(point.group_size, 1))) {
    ops += static_cast<double>(ranks[r].samples_us.size());
  }
  // Bandwidth over one op's share of the union: bytes x ops / union.
  const Bandwidth bw = ComputeBandwidth(point.op, point.bytes, point.group_size, *union_s * 1e6 / ops);
  out->busy_time = result::BusyTime{*union_s, bw.algbw_gbps, bw.busbw_gbps};
}
// --- end of issue 52's block ---

// The transport the point's ranks used, when every one reported the same (native chooses shm or tcp at Connect);
// otherwise the backend's declared one, which the plan put in the point.
Transport TransportUsed(const Point& point, const std::vector<RankSamples>& ranks) {
  if (ranks.empty() || ranks.front().transport == Transport::kUnknown) return point.transport;
  for (const RankSamples& r : ranks) {
    if (r.transport != ranks.front().transport) return point.transport;
  }
  return ranks.front().transport;
}

// --- communicator memory (issue 52) ---
// Each process once (host and pid): its ranks connect at once, so each rank's figure holds the others' growth
// too, and the largest is the process's. nullopt when no rank recorded it.
std::optional<result::CommMemory> CommMemoryOf(const Point& point, const std::vector<RankSamples>& ranks) {
  std::map<std::pair<std::string, int>, int64_t> by_process;
  int64_t device = -1;
  for (const RankSamples& r : ranks) {
    if (r.comm_rss_bytes >= 0) {
      int64_t& most = by_process[{r.host, r.pid}];
      most = std::max(most, r.comm_rss_bytes);
    }
    if (r.comm_device_bytes >= 0) device = std::max<int64_t>(device, 0) + r.comm_device_bytes;
  }
  if (by_process.empty() && device < 0) return std::nullopt;
  result::CommMemory m;
  for (const auto& [process, bytes] : by_process) m.rss_bytes += bytes;
  m.processes = static_cast<int>(by_process.size());
  m.device_bytes = device;
  m.groups = std::max(point.groups, 1);
  return m;
}
// --- end communicator memory ---

}  // namespace

PointResult AggregatePoint(const Point& point, const std::vector<RankSamples>& ranks, const AggregateOptions& options) {
  PointResult out;
  out.id = point.Id();
  out.point = point;
  if (!ranks.empty()) {
    out.point.algo = ranks.front().algo;
    out.warmup = ranks.front().warmup;
  }
  out.point.transport = TransportUsed(point, ranks);
  AddRanks(ranks, options, &out);

  const std::vector<std::vector<double>> group_series = GroupSeries(point, ranks);
  const Headline headline = HeadlineSeries(point, ranks);
  out.time_us = Summarize(headline.samples);
  out.headline_group = headline.group;
  out.headline_rank = headline.rank;
  out.loop_us_per_op = LoopUsPerOp(point, ranks, headline.group);
  std::vector<std::vector<double>> host, device;
  for (const RankSamples& r : ranks) {
    host.push_back(r.samples_us);
    if (!r.device_samples_us.empty()) device.push_back(r.device_samples_us);
  }
  out.time_us_rank_mean = Summarize(ElementwiseMean(host));
  if (point.sync == Sync::kWorldBarrier) out.time_us_world_max = Summarize(ElementwiseMax(host));
  if (!device.empty()) out.device_time_us = Summarize(ElementwiseMax(device));

  // From the loop cost per op (the headline mean), the figure the growth fits and the diagnosis read.
  const Bandwidth bw = ComputeBandwidth(point.op, point.bytes, point.group_size, out.time_us.mean);
  out.algbw_gbps = bw.algbw_gbps;
  out.busbw_gbps = bw.busbw_gbps;
  // Together the groups that run at once: all of them, or one when they take turns.
  const int at_once = point.concurrency == Concurrency::kSequential ? 1 : point.groups;
  out.aggregate_algbw_gbps = bw.algbw_gbps * at_once;
  out.aggregate_busbw_gbps = bw.busbw_gbps * at_once;

  AddCpu(ranks, options, &out);
  AddGroupsAndSkew(ranks, group_series, &out);
  AddArrivals(point, ranks, headline, &out);  // issue 52
  AddBusyTime(point, ranks, &out);
  AddPhases(ranks, headline, options, &out);
  out.comm_memory = CommMemoryOf(point, ranks);
  return out;
}

}  // namespace commbench
