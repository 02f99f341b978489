#include "lib/diagnose/analysis_input.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>

#include "lib/stats/fit.h"
#include "lib/stats/summary.h"

namespace commbench {
namespace diagnose {
namespace {

std::string KeyOf(const std::map<std::string, std::string>& axes, const std::string& skip = "") {
  std::string k;
  for (const std::string& a : SeriesAxes()) {
    if (a == skip) continue;
    auto it = axes.find(a);
    k += a + "=" + (it == axes.end() ? "" : it->second) + ";";
  }
  return k;
}

// The series axes as text: the names the result file uses, so that partners and confirming commands read as
// the user's flags.
std::map<std::string, std::string> AxisValues(const Point& p) {
  const bool gpu = p.gpu_backend();
  return {{"backend", p.backend},
          {"op", std::string(Name(p.op))},
          {"algo", p.algo},
          {"dtype", std::string(Name(p.dtype))},
          {"reduce", std::string(Name(p.reduce))},
          {"group_size", std::to_string(p.group_size)},
          {"bytes", std::to_string(p.bytes)},
          {"in_place", p.in_place ? "true" : "false"},
          {"sync", std::string(Name(p.sync))},
          {"ranks_per_process", std::to_string(p.ranks_per_process)},
          {"pin", std::string(Name(p.pin))},
          {"cpus", p.cpus},
          {"stream", gpu ? std::string(Name(p.gpu.stream)) : ""},
          {"h2d", gpu ? std::string(Name(p.gpu.h2d)) : ""},
          {"h2d_bytes", std::to_string(gpu ? p.gpu.h2d_bytes : 0)},
          {"graph", gpu && p.gpu.graph ? "true" : "false"},
          {"concurrency", std::string(Name(p.concurrency))},
          {"transport", std::string(Name(p.transport))}};
}

// --- Transfer and arrival (issue 52) ---
void AddArrival(const result::PointResult& r, PointData* d) {
  if (r.arrival) {
    d->has_arrival = true;
    d->skew_method = r.arrival->method;
    d->transfer_mean_us = r.arrival->transfer_us.mean;
    d->transfer_p50_us = r.arrival->transfer_us.p50;
    d->transfer_p99_us = r.arrival->transfer_us.p99;
    d->skew_mean_us = r.arrival->skew_us.mean;
    d->skew_p50_us = r.arrival->skew_us.p50;
    d->skew_p99_us = r.arrival->skew_us.p99;
  }
  for (const result::GroupTime& g : r.per_group) {
    if (!g.skew_p50_us) continue;
    d->group_arrivals.push_back(
        {g.group, *g.skew_p50_us, g.last_arrival_rank.value_or(-1), g.last_arrival_share.value_or(0)});
  }
  if (r.busy_time) d->busy_aggregate_busbw_gbps = r.busy_time->aggregate_busbw_gbps;
}
// --- end of issue 52's block ---

PointData FromResult(const result::PointResult& r) {
  PointData d;
  d.id = r.id;
  d.point = r.point;
  d.axes = AxisValues(r.point);
  d.groups = r.point.groups;
  d.group_size = r.point.group_size;
  d.world = r.point.world();
  d.bytes = static_cast<int64_t>(r.point.bytes);
  d.iters = static_cast<double>(r.iters);
  // The fits and rules read the loop's cost per op (the headline's mean; docs/result-format.md) with its standard
  // error: growth in what a loop of N operations costs, which a median misses when the time is in stalls.
  d.p50_us = r.time_us.mean;
  d.p99_us = r.time_us.p99;
  d.median_us = r.time_us.p50;
  if (r.time_us_world_max) d.world_max_p50_us = r.time_us_world_max->p50;
  d.se_us = StandardErrorOfMean(r.time_us);
  // Independent repeats (--repeats) measured the point's drift between runs, which no resampling of one run's
  // iterations sees: its standard error is at least theirs.
  if (r.repeat_mean_us.size() >= 2) d.se_us = std::max(d.se_us, StandardErrorOfMean(Summarize(r.repeat_mean_us)));
  d.wall_s = r.wall_s;
  d.has_cpu = true;
  d.cpu_s_total = r.cpu.cpu_s_total;
  d.cores_available = r.cpu.cores_available;
  d.saturation = r.cpu.saturation;
  d.threads_per_core = r.cpu.threads_per_core;
  d.vol_ctx_per_iter = r.cpu.vol_ctx_per_iter;
  d.invol_ctx_per_iter = r.cpu.invol_ctx_per_iter;
  d.runqueue_wait_us_per_op = r.cpu.runqueue_wait_us_per_iter;
  d.cpu_quota = r.cpu.cpu_quota;
  d.throttled_share = r.cpu.throttled_share;
  d.has_skew = true;
  d.start_skew_us = r.skew.start_skew_us;
  d.slowest_group = r.skew.slowest_group;
  d.slowest_rank = r.skew.slowest_rank;
  for (const result::GroupTime& g : r.per_group) d.group_p50.emplace_back(g.group, g.p50_us);
  for (const result::RankTime& t : r.per_rank) {
    RankData rd;
    rd.rank = t.rank;
    rd.group = t.group;
    rd.p50_us = t.time_us.p50;
    rd.setup_s = t.setup_s;
    rd.vol_ctx = t.vol_ctx;
    rd.invol_ctx = t.invol_ctx;
    rd.cpu_s = t.cpu_user_s + t.cpu_sys_s;
    d.ranks.push_back(rd);
  }
  d.busbw_gbps = r.busbw_gbps;
  d.aggregate_busbw_gbps = r.aggregate_busbw_gbps;
  d.host_load = r.host_load;
  AddArrival(r, &d);
  return d;
}

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::stringstream ss(s);
  while (std::getline(ss, cur, sep)) {
    if (!cur.empty()) out.push_back(cur);
  }
  return out;
}

std::string Join(const std::vector<std::string>& v, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
  return out;
}

}  // namespace

const std::vector<std::string>& SeriesAxes() {
  static const std::vector<std::string> kAxes = {
      "backend",           "op",  "algo", "dtype",  "reduce", "group_size", "bytes", "in_place",    "sync",
      "ranks_per_process", "pin", "cpus", "stream", "h2d",    "h2d_bytes",  "graph", "concurrency", "transport"};
  return kAxes;
}

int CountCpus(const std::string& list) {
  int n = 0;
  for (const std::string& part : Split(list, ',')) {
    size_t dash = part.find('-');
    char* end = nullptr;
    long lo = std::strtol(part.c_str(), &end, 10);
    if (end == part.c_str()) return 0;
    long hi = lo;
    if (dash != std::string::npos) {
      const char* h = part.c_str() + dash + 1;
      hi = std::strtol(h, &end, 10);
      if (end == h) return 0;
    }
    if (*end != '\0' || hi < lo) return 0;
    n += static_cast<int>(hi - lo + 1);
  }
  return n;
}

std::string PointData::Axis(const std::string& name) const {
  auto it = axes.find(name);
  return it == axes.end() ? "" : it->second;
}

double PointData::MaxSetupS() const {
  double m = -1;
  for (const RankData& r : ranks) m = std::max(m, r.setup_s);
  return m;
}

double PointData::VolCtxPerRankIter() const {
  // The sweep writes cpu.vol_ctx_per_iter as the mean over ranks of (voluntary switches / iterations).
  if (vol_ctx_per_iter > 0) return vol_ctx_per_iter;
  double total = 0;
  for (const RankData& r : ranks) total += r.vol_ctx;
  return iters > 0 && !ranks.empty() ? total / (iters * static_cast<double>(ranks.size())) : 0;
}

std::vector<int> AnalysisInput::Partners(int a, const std::string& primary,
                                         const std::vector<std::string>& varying) const {
  std::vector<int> out;
  const SeriesData& sa = series[static_cast<size_t>(a)];
  for (size_t b = 0; b < series.size(); ++b) {
    if (static_cast<int>(b) == a) continue;
    const SeriesData& sb = series[b];
    bool ok = sa.axes.count(primary) ? sb.axes.count(primary) && sb.axes.at(primary) != sa.axes.at(primary)
                                     : sb.axes.count(primary) > 0;
    for (const std::string& ax : SeriesAxes()) {
      if (!ok) break;
      if (ax == primary || std::find(varying.begin(), varying.end(), ax) != varying.end()) continue;
      auto ia = sa.axes.find(ax), ib = sb.axes.find(ax);
      std::string va = ia == sa.axes.end() ? "" : ia->second, vb = ib == sb.axes.end() ? "" : ib->second;
      ok = va == vb;
    }
    if (ok) out.push_back(static_cast<int>(b));
  }
  return out;
}

std::vector<int> AnalysisInput::SizeSiblings(int a) const {
  std::vector<int> out = Partners(a, "bytes");
  out.push_back(a);
  std::sort(out.begin(), out.end(), [this](int x, int y) {
    return First(series[static_cast<size_t>(x)]).bytes < First(series[static_cast<size_t>(y)]).bytes;
  });
  return out;
}

AbComparison AnalysisInput::Compare(int a, int b) const {
  AbComparison c;
  c.a = a;
  c.b = b;
  const SeriesData& sa = series[static_cast<size_t>(a)];
  const SeriesData& sb = series[static_cast<size_t>(b)];
  std::vector<double> g, ya, yb, sea, seb;
  for (size_t i = 0; i < sa.groups.size(); ++i) {
    auto it = std::find(sb.groups.begin(), sb.groups.end(), sa.groups[i]);
    if (it == sb.groups.end()) continue;
    size_t j = static_cast<size_t>(it - sb.groups.begin());
    g.push_back(sa.groups[i]);
    ya.push_back(sa.p50_us[i]);
    sea.push_back(sa.se_us[i]);
    yb.push_back(sb.p50_us[j]);
    seb.push_back(sb.se_us[j]);
  }
  if (g.size() < 2) return c;
  c.g_lo = g.front();
  c.g_hi = g.back();
  // Each side's growth is its own model's, judged against its own noise: a B side whose shape is within its
  // noise grew by nothing. The least-squares slopes must agree, so that a B too noisy to model cannot pass for
  // a fix: the reported cut is the smaller of the two.
  // Both sides at the noisier side's floor (a pair differs in one axis, so both have one size and one floor).
  ScalingOptions both = OptionsFor(sa);
  both.relative_noise_floor = std::max(both.relative_noise_floor, OptionsFor(sb).relative_noise_floor);
  ScalingFit fa = FitScaling(g, ya, sea, both), fb = FitScaling(g, yb, seb, both);
  c.growth_a_us = fa.grows ? fa.growth : 0;
  c.growth_b_us = fb.grows ? fb.growth : 0;
  double ls_a = FitLine(g, ya).slope * (c.g_hi - c.g_lo), ls_b = FitLine(g, yb).slope * (c.g_hi - c.g_lo);
  bool a_grows = c.growth_a_us > 0 && ls_a > 0;
  if (a_grows) {
    double cut_model = 1 - std::max(c.growth_b_us, 0.0) / c.growth_a_us;
    double cut_ls = 1 - std::max(ls_b, 0.0) / ls_a;
    c.cut = std::min(cut_model, cut_ls);
    if (cut_ls < cut_model) {  // report the growths the cut was computed from
      c.growth_a_us = ls_a;
      c.growth_b_us = std::max(ls_b, 0.0);
    }
  }
  c.a_grows = a_grows;
  c.removed = a_grows && c.cut >= kMinCut;
  return c;
}

namespace {

// --cpus values are CPU lists themselves ("0,2-3"), so the sweep separates them with ';' (shell-quoted).
char Separator(const std::string& axis) { return axis == "cpus" ? ';' : ','; }

std::string Unquote(const std::string& v) {
  if (v.size() >= 2 && (v.front() == '\'' || v.front() == '"') && v.back() == v.front())
    return v.substr(1, v.size() - 2);
  return v;
}

std::string Quote(const std::string& v) { return v.find(';') == std::string::npos ? v : "'" + v + "'"; }

// The confirming run writes next to the original result instead of over it.
std::string AbOutput(const std::string& out) {
  size_t slash = out.rfind('/');
  size_t dot = out.rfind('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return out + "-ab";
  return out.substr(0, dot) + "-ab" + out.substr(dot);
}

// Flags that take one value, not a sweep axis: the confirming value replaces the original.
bool IsScalarFlag(const std::string& axis) { return axis == "warmup"; }

}  // namespace

std::string AnalysisInput::ConfirmCommand(
    const std::vector<std::pair<std::string, std::vector<std::string>>>& axes) const {
  std::vector<std::string> tokens = Split(command.empty() ? "commbench sweep" : command, ' ');
  for (size_t i = 0; i + 1 < tokens.size(); ++i) {
    if (tokens[i] == "--out" || tokens[i] == "-o" || tokens[i] == "--html") tokens[i + 1] = AbOutput(tokens[i + 1]);
  }
  for (auto& t : tokens) {
    for (const char* flag : {"--out=", "--html="}) {
      if (t.rfind(flag, 0) == 0) t = flag + AbOutput(t.substr(std::string(flag).size()));
    }
  }
  for (const auto& [axis, values] : axes) {
    std::string flag = "--" + axis;
    std::replace(flag.begin(), flag.end(), '_', '-');
    char sep = Separator(axis);
    bool found = false;
    for (size_t i = 0; i < tokens.size() && !found; ++i) {
      std::string* value = nullptr;
      std::string prefix;
      if (tokens[i] == flag && i + 1 < tokens.size()) {
        value = &tokens[i + 1];
      } else if (tokens[i].rfind(flag + "=", 0) == 0) {
        prefix = flag + "=";
        value = &tokens[i];
      }
      if (value == nullptr) continue;
      std::vector<std::string> merged = Split(Unquote(value->substr(prefix.size())), sep);
      if (IsScalarFlag(axis)) merged.clear();
      for (const std::string& v : values) {
        if (std::find(merged.begin(), merged.end(), v) == merged.end()) merged.push_back(v);
      }
      *value = prefix + Quote(Join(merged, std::string(1, sep)));
      found = true;
    }
    if (!found) {
      tokens.push_back(flag);
      tokens.push_back(Quote(Join(values, std::string(1, sep))));
    }
  }
  return Join(tokens, " ");
}

namespace {

bool LoadApart(const PointData& a, const PointData& b) {
  if (!a.host_load || !b.host_load) return false;
  return std::fabs(a.host_load->OutsideCpus() - b.host_load->OutsideCpus()) >= result::kBusyOutsideCpus;
}

}  // namespace

result::NoiseFloor MeasureNoiseFloor(const std::vector<PointData>& points, double default_relative) {
  std::map<std::pair<int, std::map<std::string, std::string>>, std::vector<const PointData*>> by_config;
  for (const PointData& p : points) {
    if (!(p.p50_us > 0)) continue;
    std::map<std::string, std::string> config = p.axes;
    if (p.groups == 1) config.erase("concurrency");
    by_config[{p.groups, config}].push_back(&p);
  }
  std::map<int64_t, double> sum_sq;
  double all_sq = 0;
  result::NoiseFloor floor;
  floor.default_relative = default_relative;
  for (const auto& [config, same] : by_config) {
    for (size_t i = 1; i < same.size(); ++i) {  // consecutive pairs: each point in at most two
      // Two points of which one ran beside a neighbour that the other did not see measure the neighbour, not how
      // far one setting scatters: such a pair would make every series' noise the neighbour's (the outside-load
      // caveat names it instead).
      if (LoadApart(*same[i - 1], *same[i])) continue;
      const double a = same[i - 1]->p50_us, b = same[i]->p50_us;
      const double d = (b - a) / (0.5 * (a + b));
      sum_sq[same[i]->bytes] += d * d;
      all_sq += d * d;
      ++floor.by_bytes[same[i]->bytes].pairs;
      ++floor.all.pairs;
    }
  }
  for (auto& [bytes, r] : floor.by_bytes) r.relative_sd = std::sqrt(sum_sq[bytes] / (2.0 * r.pairs));
  if (floor.all.pairs > 0) floor.all.relative_sd = std::sqrt(all_sq / (2.0 * floor.all.pairs));
  return floor;
}

ScalingOptions AnalysisInput::OptionsFor(const SeriesData& s) const {
  ScalingOptions o = options;
  if (!s.points.empty()) o.relative_noise_floor = noise_floor.For(First(s).bytes);
  return o;
}

// Over 80 lines: points, series, fits and peaks are built in order into the one input every rule reads.
AnalysisInput BuildAnalysisInput(const std::vector<result::PointResult>& points, const std::string& command,
                                 const result::Environment& environment, const ScalingOptions& options,
                                 int64_t requested_points) {
  AnalysisInput in;
  in.command = command;
  in.cores_online = environment.cores_online;
  in.affinity = environment.affinity;
  if (environment.peaks) {
    in.memcpy_gbps = environment.peaks->memcpy_gbps;
    in.tcp_loopback_gbps = environment.peaks->tcp_loopback_gbps;
  }
  in.points.reserve(points.size());
  for (size_t i = 0; i < points.size(); ++i) {
    const result::PointResult& p = points[i];
    if (p.correct) {
      in.points.push_back(FromResult(p));
      in.points.back().requested = requested_points < 0 || static_cast<int64_t>(i) < requested_points;
    } else {
      in.excluded.push_back(p.id);
    }
  }

  in.options = options;
  in.noise_floor = MeasureNoiseFloor(in.points, options.relative_noise_floor);

  std::map<std::string, int> index;
  for (size_t i = 0; i < in.points.size(); ++i) {
    // A point without a time (it failed, or the run stopped during it) says nothing about growth.
    if (!(in.points[i].p50_us > 0) || in.points[i].groups <= 0) continue;
    std::string key = KeyOf(in.points[i].axes);
    auto [it, inserted] = index.emplace(key, static_cast<int>(in.series.size()));
    if (inserted) {
      SeriesData s;
      s.key = key;
      s.axes = in.points[i].axes;
      s.point = in.points[i].point;
      s.requested = false;
      in.series.push_back(s);
    }
    SeriesData& series = in.series[static_cast<size_t>(it->second)];
    series.points.push_back(static_cast<int>(i));
    series.requested = series.requested || in.points[i].requested;
  }
  for (SeriesData& s : in.series) {
    std::stable_sort(s.points.begin(), s.points.end(), [&in](int a, int b) {
      return in.points[static_cast<size_t>(a)].groups < in.points[static_cast<size_t>(b)].groups;
    });
    // A repeated group count keeps its first point: a series is a function of G.
    std::vector<int> unique;
    for (int p : s.points) {
      if (!unique.empty() &&
          in.points[static_cast<size_t>(unique.back())].groups == in.points[static_cast<size_t>(p)].groups)
        continue;
      unique.push_back(p);
    }
    s.points = unique;
    for (int p : s.points) {
      const PointData& d = in.points[static_cast<size_t>(p)];
      s.groups.push_back(d.groups);
      s.p50_us.push_back(d.p50_us);
      s.se_us.push_back(d.se_us);
    }
    s.fit = FitScaling(s.groups, s.p50_us, s.se_us, in.OptionsFor(s));
  }

  // Per size: does the per-group slope scale with bytes? Needs at least two sizes of the same series family.
  std::set<int> done;
  for (size_t a = 0; a < in.series.size(); ++a) {
    if (done.count(static_cast<int>(a))) continue;
    std::vector<int> sibs = in.SizeSiblings(static_cast<int>(a));
    for (int s : sibs) done.insert(s);
    if (sibs.size() < 2) continue;
    std::vector<SizeSlope> sizes;
    for (int s : sibs)
      sizes.push_back(
          {in.First(in.series[static_cast<size_t>(s)]).bytes, in.series[static_cast<size_t>(s)].fit.line.slope});
    SlopeBytesFit f = ClassifySlopeBySize(sizes);
    for (size_t i = 0; i < sibs.size() && i < f.sizes.size(); ++i) {
      SeriesData& s = in.series[static_cast<size_t>(sibs[i])];
      s.bytes_share = f.sizes[i].bytes_share;
      s.slope_vs_bytes =
          f.sizes[i].bandwidth_bound ? result::SlopeKind::kBandwidthBound : result::SlopeKind::kPerOperation;
    }
  }
  return in;
}

}  // namespace diagnose
}  // namespace commbench

namespace commbench {
namespace diagnose {

std::optional<InterleavedAb> AnalysisInput::InterleavedFor(int a, int b) const {
  for (const InterleavedAb& ab : interleaved) {
    if (ab.a == a && ab.b == b) return ab;
    if (ab.a == b && ab.b == a) {
      InterleavedAb swapped{a, b, ab.rounds};
      for (result::AbRound& r : swapped.rounds) {
        std::swap(r.a, r.b);
        r.a_first = !r.a_first;
      }
      return swapped;
    }
  }
  return std::nullopt;
}

void AttachInterleaved(const result::ExplainRecord& explain, AnalysisInput* in) {
  std::map<std::string, int> series_of;
  for (size_t s = 0; s < in->series.size(); ++s) {
    for (int p : in->series[s].points) series_of[in->points[static_cast<size_t>(p)].id] = static_cast<int>(s);
  }
  for (const result::ExplainAb& ab : explain.abs) {
    // One explain record may hold rounds of several series pairs (a series per backend or size): split by pair.
    std::map<std::pair<int, int>, std::vector<result::AbRound>> by_pair;
    for (const result::AbRound& r : ab.rounds) {
      auto a = series_of.find(r.a.point), b = series_of.find(r.b.point);
      if (a == series_of.end() || b == series_of.end() || a->second == b->second) continue;
      by_pair[{a->second, b->second}].push_back(r);
    }
    for (auto& [pair, rounds] : by_pair) {
      if (in->InterleavedFor(pair.first, pair.second)) continue;  // two causes may share one A/B: measured once
      in->interleaved.push_back({pair.first, pair.second, std::move(rounds)});
    }
  }
}

}  // namespace diagnose
}  // namespace commbench
