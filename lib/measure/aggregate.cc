#include "lib/measure/aggregate.h"

#include <algorithm>
#include <climits>

#include "lib/stats/bandwidth.h"
#include "lib/stats/summary.h"

namespace commbench {

using result::PointResult;
using result::RankSamples;

namespace {

// Each group's own per-iteration max (its ranks' times, iteration by iteration).
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

// What the job feels: the slowest rank, iteration by iteration. Groups taking turns run their iterations at
// different times, so pairing group A's iteration i with group B's would compare unrelated moments (and
// compound their tails): there the samples are each group's own per-iteration times, pooled.
std::vector<double> JobSamples(const Point& point, const std::vector<RankSamples>& ranks,
                               const std::vector<std::vector<double>>& group_series) {
  if (point.concurrency == Concurrency::kSequential) {
    std::vector<double> pooled;
    for (const auto& g : group_series) pooled.insert(pooled.end(), g.begin(), g.end());
    return pooled;
  }
  std::vector<std::vector<double>> all;
  all.reserve(ranks.size());
  for (const RankSamples& r : ranks) all.push_back(r.samples_us);
  return ElementwiseMax(all);
}

void AddRanks(const std::vector<RankSamples>& ranks, const AggregateOptions& options, PointResult* out) {
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
    t.time_us = Summarize(r.samples_us);
    t.cpu_user_s = r.cpu_user_s;
    t.cpu_sys_s = r.cpu_sys_s;
    t.vol_ctx = r.vol_ctx;
    t.invol_ctx = r.invol_ctx;
    t.affinity = r.affinity;
    t.setup_s = r.setup_s;
    t.checked_iters = r.checked_iters;
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
  const double cores = std::max(options.cores_available, 1);
  const double per_iter =
      out->iters ? 1.0 / static_cast<double>(out->iters) / std::max<double>(static_cast<double>(ranks.size()), 1) : 0;
  out->cpu.cpu_s_total = cpu_total;
  out->cpu.cores_available = options.cores_available;
  out->cpu.saturation = out->wall_s > 0 ? cpu_total / (cores * out->wall_s) : 0.0;
  out->cpu.threads_per_core = static_cast<double>(ranks.size()) / cores;
  out->cpu.vol_ctx_per_iter = vol * per_iter;
  out->cpu.invol_ctx_per_iter = invol * per_iter;
}

// Per group: the group's own per-iteration max; the slowest group and rank by median, and the start skew.
void AddGroupsAndSkew(const std::vector<RankSamples>& ranks, const std::vector<std::vector<double>>& group_series,
                      PointResult* out) {
  double slowest_group_p50 = -1, slowest_rank_p50 = -1;
  for (size_t g = 0; g < group_series.size(); ++g) {
    Summary s = Summarize(group_series[g]);
    out->per_group.push_back({static_cast<int>(g), s.p50, s.mean});
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
  auto [first, last] = std::minmax_element(ranks.begin(), ranks.end(), [](const RankSamples& a, const RankSamples& b) {
    return a.start_ns < b.start_ns;
  });
  out->skew.start_skew_us = static_cast<double>(last->start_ns - first->start_ns) * 1e-3;
}

}  // namespace

PointResult AggregatePoint(const Point& point, const std::vector<RankSamples>& ranks,
                           const AggregateOptions& options) {
  PointResult out;
  out.id = point.Id();
  out.point = point;
  if (!ranks.empty()) {
    out.point.algo = ranks.front().algo;
    out.warmup = ranks.front().warmup;
  }
  AddRanks(ranks, options, &out);

  const std::vector<std::vector<double>> group_series = GroupSeries(point, ranks);
  out.time_us = Summarize(JobSamples(point, ranks, group_series));
  std::vector<std::vector<double>> host, device;
  for (const RankSamples& r : ranks) {
    host.push_back(r.samples_us);
    if (!r.device_samples_us.empty()) device.push_back(r.device_samples_us);
  }
  out.time_us_rank_mean = Summarize(ElementwiseMean(host));
  if (!device.empty()) out.device_time_us = Summarize(ElementwiseMax(device));

  const Bandwidth bw = ComputeBandwidth(point.op, point.bytes, point.group_size, out.time_us.p50);
  out.algbw_gbps = bw.algbw_gbps;
  out.busbw_gbps = bw.busbw_gbps;
  // Together the groups that run at once: all of them, or one when they take turns.
  const int at_once = point.concurrency == Concurrency::kSequential ? 1 : point.groups;
  out.aggregate_algbw_gbps = bw.algbw_gbps * at_once;
  out.aggregate_busbw_gbps = bw.busbw_gbps * at_once;

  AddCpu(ranks, options, &out);
  AddGroupsAndSkew(ranks, group_series, &out);
  return out;
}

}  // namespace commbench
