#include "lib/diagnose/analysis_input.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "lib/stats/fit.h"
#include "lib/stats/summary.h"

namespace commbench {
namespace diagnose {
namespace {

using nlohmann::json;

double Num(const json& j, const char* key, double fallback = 0) {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return fallback;
  return it->get<double>();
}

std::string Text(const json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_number_unsigned()) return std::to_string(v.get<uint64_t>());
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (d == std::floor(d) && std::fabs(d) < 1e15) return std::to_string(static_cast<int64_t>(d));
    std::ostringstream s;
    s << d;
    return s.str();
  }
  return v.dump();
}

std::string KeyOf(const std::map<std::string, std::string>& axes, const std::string& skip = "") {
  std::string k;
  for (const std::string& a : SeriesAxes()) {
    if (a == skip) continue;
    auto it = axes.find(a);
    k += a + "=" + (it == axes.end() ? "" : it->second) + ";";
  }
  return k;
}

PointData ParsePoint(const json& p) {
  PointData d;
  d.id = p.contains("id") && p["id"].is_string() ? p["id"].get<std::string>() : "";
  for (const std::string& a : SeriesAxes()) {
    auto it = p.find(a);
    if (it != p.end()) d.axes[a] = Text(*it);
  }
  d.groups = static_cast<int>(Num(p, "groups"));
  d.group_size = static_cast<int>(Num(p, "group_size"));
  d.world = static_cast<int>(Num(p, "world", d.groups * d.group_size));
  d.bytes = static_cast<int64_t>(Num(p, "bytes"));
  d.iters = Num(p, "iters");
  const json& t = p.contains("time_us") ? p["time_us"] : json();
  d.p50_us = Num(t, "p50");
  d.p99_us = Num(t, "p99", d.p50_us);
  d.se_us = StandardErrorFromCI95(Num(t, "ci95_lo"), Num(t, "ci95_hi"));
  // No CI in the file: derive it from the raw samples (per-iteration max across ranks), as the sweep would.
  if (d.se_us == 0 && p.contains("samples_us") && p["samples_us"].is_object()) {
    const json& pr = p["samples_us"].value("per_rank", json::array());
    std::vector<std::vector<double>> series;
    for (const json& r : pr) {
      if (!r.is_array()) continue;
      std::vector<double> v;
      for (const json& x : r) {
        if (x.is_number()) v.push_back(x.get<double>());
      }
      series.push_back(v);
    }
    if (!series.empty() && !series[0].empty()) {
      size_t n = series[0].size();
      bool same = std::all_of(series.begin(), series.end(), [n](const auto& s) { return s.size() == n; });
      if (same) {
        Summary s = Summarize(ElementwiseMax(series));
        d.se_us = StandardErrorFromCI95(s.ci95_lo, s.ci95_hi);
        if (d.p50_us == 0) d.p50_us = s.p50;
      }
    }
  }
  d.wall_s = Num(p, "wall_s");
  if (p.contains("cpu") && p["cpu"].is_object()) {
    const json& c = p["cpu"];
    d.has_cpu = true;
    d.cpu_s_total = Num(c, "cpu_s_total");
    d.cores_available = Num(c, "cores_available");
    d.saturation = Num(c, "saturation", -1);
    if (d.saturation < 0) {
      d.saturation = d.cores_available > 0 && d.wall_s > 0 ? d.cpu_s_total / (d.cores_available * d.wall_s) : 0;
    }
    d.threads_per_core = Num(c, "threads_per_core", d.cores_available > 0 ? d.world / d.cores_available : 0);
    d.vol_ctx_per_iter = Num(c, "vol_ctx_per_iter");
    d.invol_ctx_per_iter = Num(c, "invol_ctx_per_iter");
  }
  if (p.contains("skew") && p["skew"].is_object()) {
    const json& s = p["skew"];
    d.has_skew = true;
    d.start_skew_us = Num(s, "start_skew_us");
    d.slowest_group = static_cast<int>(Num(s, "slowest_group", -1));
    d.slowest_rank = static_cast<int>(Num(s, "slowest_rank", -1));
  }
  if (p.contains("per_group") && p["per_group"].is_array()) {
    for (const json& g : p["per_group"]) d.group_p50.emplace_back(static_cast<int>(Num(g, "group")), Num(g, "p50_us"));
  }
  if (p.contains("per_rank") && p["per_rank"].is_array()) {
    for (const json& r : p["per_rank"]) {
      RankData rd;
      rd.rank = static_cast<int>(Num(r, "rank", -1));
      rd.group = static_cast<int>(Num(r, "group", -1));
      if (r.contains("time_us")) rd.p50_us = Num(r["time_us"], "p50");
      rd.setup_s = Num(r, "setup_s", -1);
      rd.vol_ctx = Num(r, "vol_ctx");
      rd.invol_ctx = Num(r, "invol_ctx");
      rd.cpu_s = Num(r, "cpu_user_s") + Num(r, "cpu_sys_s");
      d.ranks.push_back(rd);
    }
  }
  d.busbw_gbps = Num(p, "busbw_gbps");
  d.aggregate_busbw_gbps = Num(p, "aggregate_busbw_gbps", d.busbw_gbps * d.groups);
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
  // `fault` and `concurrency` are read when present: the test-only fault injection and the concurrent vs
  // one-after-another schedule must split series like any other axis.
  static const std::vector<std::string> kAxes = {"backend",    "op",          "algo",      "dtype", "reduce",
                                                 "group_size", "bytes",       "in_place",  "sync",  "ranks_per_process",
                                                 "pin",        "cpus",        "stream",    "h2d",   "h2d_bytes",
                                                 "graph",      "concurrency", "transport", "fault"};
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
  ScalingFit fa = FitScaling(g, ya, sea, options), fb = FitScaling(g, yb, seb, options);
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

AnalysisInput BuildAnalysisInput(const json& result, const ScalingOptions& options) {
  AnalysisInput in;
  in.options = options;
  if (!result.is_object()) return in;
  if (result.contains("command") && result["command"].is_string()) in.command = result["command"].get<std::string>();
  if (result.contains("environment") && result["environment"].is_object()) {
    const json& env = result["environment"];
    in.cores_online = Num(env, "cores_online");
    if (env.contains("affinity") && env["affinity"].is_string()) in.affinity = env["affinity"].get<std::string>();
    if (env.contains("peaks") && env["peaks"].is_object()) {
      in.memcpy_gbps = Num(env["peaks"], "memcpy_gbps");
      in.tcp_loopback_gbps = Num(env["peaks"], "tcp_loopback_gbps");
    }
  }
  if (result.contains("points") && result["points"].is_array()) {
    for (const json& p : result["points"]) {
      if (p.is_object()) in.points.push_back(ParsePoint(p));
    }
  }

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
      in.series.push_back(s);
    }
    in.series[static_cast<size_t>(it->second)].points.push_back(static_cast<int>(i));
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
    s.fit = FitScaling(s.groups, s.p50_us, s.se_us, options);
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
      s.slope_vs_bytes = f.sizes[i].bandwidth_bound ? "bandwidth-bound" : "per-operation overhead";
    }
  }
  return in;
}

}  // namespace diagnose
}  // namespace commbench
