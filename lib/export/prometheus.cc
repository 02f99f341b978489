#include "lib/export/prometheus.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>
#include <vector>

#include "lib/core/axes.h"
#include "lib/core/printable.h"
#include "lib/core/types.h"
#include "lib/export/point_axes.h"
#include "lib/export/point_traffic.h"

namespace commbench::exporting {
namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

// The exposition format is UTF-8 with three escapes: control characters and bytes that are not UTF-8 (a host
// name's, say) are first made visible (Printable), or node_exporter would drop the whole file.
std::string EscapeLabel(const std::string& value) {
  const std::string v = Printable(value);
  std::string out;
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string LabelText(const Labels& labels) {
  std::string out;
  for (const auto& [k, v] : labels) out += (out.empty() ? "" : ",") + k + "=\"" + EscapeLabel(v) + "\"";
  return out.empty() ? "" : "{" + out + "}";
}

// Families in the order first added; each family's samples together (the format requires it), no series twice.
class Exposition {
 public:
  void Add(const std::string& name, const std::string& type, const std::string& help, const Labels& labels,
           double value, const std::string& suffix = "") {
    auto [it, inserted] = index_.emplace(name, families_.size());
    if (inserted) families_.push_back({name, type, help, {}});
    const std::string series = name + suffix + LabelText(labels);
    if (!seen_.insert(series).second) return;  // two points with the same labels: the first is kept
    families_[it->second].lines.push_back(series + " " + Number(value, "NaN"));
  }

  std::string Text() const {
    std::string out;
    for (const Family& f : families_) {
      out += "# HELP " + f.name + " " + f.help + "\n# TYPE " + f.name + " " + f.type + "\n";
      for (const std::string& line : f.lines) out += line + "\n";
    }
    return out;
  }

 private:
  struct Family {
    std::string name, type, help;
    std::vector<std::string> lines;
  };
  std::vector<Family> families_;
  std::map<std::string, size_t> index_;
  std::set<std::string> seen_;
};

// The point's axes as labels: the core ones always, the others only where they are not the default (an absent
// label and an empty one are the same series in PromQL).
Labels PointLabels(const Point& p) {
  Labels l = {{"backend", p.backend},
              {"op", std::string(Name(p.op))},
              {"algo", p.algo},
              {"dtype", std::string(Name(p.dtype))},
              {"groups", std::to_string(p.groups)},
              {"group_size", std::to_string(p.group_size)},
              {"size", std::to_string(p.bytes)},
              {"sync", std::string(Name(p.sync))}};
  if (!p.phase.empty()) l.push_back({"phase", p.phase});
  if (p.reduce != ReduceOp::kSum) l.push_back({"reduce", std::string(Name(p.reduce))});
  if (p.concurrency != Concurrency::kConcurrent) l.push_back({"concurrency", std::string(Name(p.concurrency))});
  if (p.ranks_per_process != 1) l.push_back({"ranks_per_process", std::to_string(p.ranks_per_process)});
  if (p.pin != Pin::kNone) l.push_back({"pin", std::string(Name(p.pin))});
  if (!p.cpus.empty()) l.push_back({"cpus", p.cpus});
  if (p.gpu_backend()) {
    l.push_back({"stream", std::string(Name(p.gpu.stream))});
    l.push_back({"h2d", std::string(Name(p.gpu.h2d))});
    l.push_back({"graph", std::string(GraphName(p.gpu.graph))});
  }
  return l;
}

// Microseconds to seconds, to the nanosecond (the clock's resolution; the file's times are written so too).
double Seconds(double us) { return std::round(us * 1e3) / 1e9; }

Labels With(Labels l, const std::string& key, const std::string& value) {
  l.push_back({key, value});
  return l;
}

void AddRun(const result::ResultFile& f, Exposition* e) {
  const auto& h = f.header;
  e->Add("commbench_info", "gauge", "The tool that wrote the result: version and commit (always 1).",
         {{"tool", h.tool.name}, {"version", h.tool.version}, {"commit", h.tool.commit}}, 1);
  const nlohmann::json& fp = h.environment.fingerprint;
  const std::string cpu =
      fp.contains("cpu_model") && fp["cpu_model"].is_string() ? fp["cpu_model"].get<std::string>() : "";
  e->Add(
      "commbench_environment_info", "gauge", "Where the result was measured: host, CPU model, cores (always 1).",
      {{"host", h.environment.host}, {"cpu_model", cpu}, {"cores_online", std::to_string(h.environment.cores_online)}},
      1);
  double started = 0;
  if (ParseIsoTime(h.started_at, &started)) {
    e->Add("commbench_run_timestamp_seconds", "gauge", "When the run started, seconds since the Unix epoch.", {},
           started);
  }
  e->Add("commbench_run_duration_seconds", "gauge", "How long the run took.", {}, f.trailer.duration_s);
  e->Add("commbench_run_complete", "gauge", "1 when every planned point ran, 0 for a partial result.", {},
         f.trailer.status == result::RunStatus::kComplete ? 1 : 0);
  e->Add("commbench_run_points", "gauge", "Points in the result.", {}, static_cast<double>(f.points.size()));
}

// What the ranks had of the CPU: how busy it was, their wait for it, and a cgroup quota where one bound them.
void AddCpu(const result::CpuUsage& c, const Labels& l, Exposition* e) {
  e->Add("commbench_point_cpu_saturation_ratio", "gauge",
         "CPU time of the ranks over the cores they may use (the cgroup's quota where smaller) times the wall time.", l,
         c.saturation);
  if (c.runqueue_wait_us_per_iter >= 0) {
    e->Add("commbench_point_runqueue_wait_seconds", "gauge",
           "The most any rank waited for a CPU (runnable, on a run queue) per timed iteration.", l,
           Seconds(c.runqueue_wait_us_per_iter));
  }
  if (c.cpu_quota > 0) {
    e->Add("commbench_point_cpu_quota_cores", "gauge", "The ranks' cgroup CPU limit (CFS quota / period), in CPUs.", l,
           c.cpu_quota);
  }
  if (c.throttled_share >= 0) {
    e->Add("commbench_point_cpu_throttled_ratio", "gauge",
           "Share of the cgroup's enforcement periods in the timed loop in which it ran out of quota.", l,
           c.throttled_share);
  }
}

void AddPoint(const result::PointResult& p, Exposition* e) {
  const Labels l = PointLabels(p.point);
  const char* op_help =
      "Per-iteration time of one operation (the slowest rank's own times), quantiles over the "
      "timed iterations.";
  const std::pair<const char*, double> quantiles[] = {{"0", p.time_us.min},
                                                      {"0.5", p.time_us.p50},
                                                      {"0.95", p.time_us.p95},
                                                      {"0.99", p.time_us.p99},
                                                      {"1", p.time_us.max}};
  for (const auto& [q, us] : quantiles)
    e->Add("commbench_op_duration_seconds", "summary", op_help, With(l, "quantile", q), Seconds(us));
  const double n = static_cast<double>(p.time_us.n);
  e->Add("commbench_op_duration_seconds", "summary", op_help, l, Seconds(p.time_us.mean * n), "_sum");
  e->Add("commbench_op_duration_seconds", "summary", op_help, l, n, "_count");
  e->Add("commbench_op_loop_cost_seconds", "gauge",
         "What a loop of these operations costs per op (the console's loop column; the growth fits read it).", l,
         Seconds(p.time_us.mean));
  e->Add("commbench_op_rank_mean_seconds", "gauge",
         "Median over iterations of the mean across ranks (nccl-tests' time).", l, Seconds(p.time_us_rank_mean.p50));
  e->Add("commbench_algbw_bytes_per_second", "gauge", "Algorithm bandwidth per group (nccl-tests' algbw).", l,
         p.algbw_gbps * 1e9);
  e->Add("commbench_busbw_bytes_per_second", "gauge", "Bus bandwidth per group (nccl-tests' busbw).", l,
         p.busbw_gbps * 1e9);
  e->Add("commbench_aggregate_busbw_bytes_per_second", "gauge",
         "Bus bandwidth summed over the groups that run at once.", l, p.aggregate_busbw_gbps * 1e9);
  e->Add("commbench_point_correct", "gauge", "1 when every checked output was right, else 0.", l, p.correct ? 1 : 0);
  e->Add("commbench_point_iterations", "gauge", "Timed iterations of the point.", l, static_cast<double>(p.iters));
  e->Add("commbench_point_repeats", "gauge", "Independent repeats (fresh launches) of the point.", l,
         static_cast<double>(std::max<size_t>(1, p.repeat_p50_us.size())));
  e->Add("commbench_point_wall_seconds", "gauge", "Wall time of the point's timed loops, first start to last end.", l,
         p.wall_s);
  AddCpu(p.cpu, l, e);
  if (const std::optional<PointTraffic> t = BusiestRankTraffic(p)) {
    const Labels source = With(l, "source", t->source);
    const char* help =
        "Bytes per operation of the busiest rank, measured (tcp_info: the kernel's socket counters; "
        "shm_copies: what it copied from peers, received only).";
    if (t->sent_bytes_per_op >= 0)
      e->Add("commbench_rank_sent_per_op_bytes", "gauge", help, source, t->sent_bytes_per_op);
    if (t->recv_bytes_per_op >= 0)
      e->Add("commbench_rank_received_per_op_bytes", "gauge", help, source, t->recv_bytes_per_op);
    if (t->model_sent_bytes_per_op >= 0) {
      e->Add("commbench_rank_model_sent_per_op_bytes", "gauge",
             "The algorithm's model of the same rank's bytes per op.", l, t->model_sent_bytes_per_op);
    }
    if (t->ratio >= 0)
      e->Add("commbench_traffic_vs_model_ratio", "gauge", "Measured / modelled bytes per op.", l, t->ratio);
  }
  std::map<std::string, double> host_p50;  // the slowest median among a host's ranks
  for (const result::RankTime& r : p.per_rank) {
    const std::string host = r.host.empty() ? r.address : r.host;
    if (host.empty()) continue;
    host_p50[host] = std::max(host_p50[host], r.time_us.p50);
  }
  for (const auto& [host, us] : host_p50) {
    e->Add("commbench_host_op_median_seconds", "gauge", "Per host: the slowest median op time among its ranks.",
           With(l, "host", host), Seconds(us));
  }
}

void AddGrowth(const result::ResultFile& f, Exposition* e) {
  for (const result::Fit& fit : f.trailer.diagnosis.fits) {
    Labels l = PointLabels(fit.series);
    l.erase(std::remove_if(l.begin(), l.end(), [](const auto& kv) { return kv.first == "groups"; }), l.end());
    e->Add("commbench_growth_per_group_seconds", "gauge",
           "Slope of the loop cost against the group count (the console's growth line), per added group.", l,
           Seconds(fit.slope_us_per_group));
  }
}

std::string Str(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

void AddAcceptance(const nlohmann::json& a, Exposition* e) {
  e->Add("commbench_acceptance_passed", "gauge", "1 when the acceptance verdict is pass, else 0.",
         {{"profile", Str(a, "profile_name")}}, Str(a, "verdict") == "pass" ? 1 : 0);
  for (const nlohmann::json& c : a.value("checks", nlohmann::json::array())) {
    e->Add("commbench_acceptance_check_passed", "gauge", "Per acceptance check (and host): 1 passed, 0 failed.",
           {{"check", Str(c, "name")}, {"host", Str(c, "host")}}, c.value("passed", false) ? 1 : 0);
  }
  for (const nlohmann::json& h : a.value("hosts", nlohmann::json::array())) {
    const Labels l = {{"host", Str(h, "host")}};
    e->Add("commbench_acceptance_host_passed", "gauge", "Per host: 1 when its acceptance verdict is pass, else 0.", l,
           Str(h, "verdict") == "pass" ? 1 : 0);
    const double busbw =
        h.contains("host_busbw_gbps") && h["host_busbw_gbps"].is_number() ? h["host_busbw_gbps"].get<double>() : 0;
    if (busbw > 0) {
      e->Add("commbench_acceptance_host_busbw_bytes_per_second", "gauge", "Per host: its own group's bus bandwidth.", l,
             busbw * 1e9);
    }
  }
  for (const nlohmann::json& s : a.value("suspects", nlohmann::json::array())) {
    const double score = s.contains("score") && s["score"].is_number() ? s["score"].get<double>() : 0;
    e->Add("commbench_acceptance_suspect_score", "gauge",
           "A ranked suspect (host, link or rank): how much slower than its peers.",
           {{"kind", Str(s, "kind")},
            {"host", Str(s, "host")},
            {"peer", Str(s, "peer")},
            {"rank", s.contains("rank") && s["rank"].is_number_integer() ? std::to_string(s["rank"].get<int>()) : ""}},
           score);
  }
}

}  // namespace

std::string ToPrometheusText(const result::ResultFile& file) {
  Exposition e;
  AddRun(file, &e);
  for (const result::PointResult& p : file.points) AddPoint(p, &e);
  AddGrowth(file, &e);
  if (file.trailer.acceptance && file.trailer.acceptance->is_object()) AddAcceptance(*file.trailer.acceptance, &e);
  return e.Text();
}

}  // namespace commbench::exporting
