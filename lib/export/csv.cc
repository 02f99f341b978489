#include "lib/export/csv.h"

#include <algorithm>
#include <vector>

#include "lib/core/csv_cell.h"
#include "lib/export/point_axes.h"
#include "lib/export/point_traffic.h"

namespace commbench::exporting {
namespace {

using Row = std::vector<std::string>;

std::string Num(double v) { return Number(v, ""); }  // an empty field reads as NaN in pandas

// Every cell is written already: text from files and flags (ids, axis names, hosts) by Text, numbers and
// commbench's own names (columns, true/false) as they are, since they hold no comma, quote or line break.
std::string Line(const Row& fields) {
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) out += (i ? "," : "") + fields[i];
  return out + "\r\n";
}

// Text from a file or a flag: quoted where RFC 4180 needs it, and no formula a spreadsheet would run (OWASP,
// lib/core/csv_cell.h). Numbers never come here, so -3.5 stays a number.
std::string Text(const std::string& text) { return CsvText(text); }

// The id and every axis: the first columns of every row kind. The axes that are text (backend, algo, cpus,
// phase, enum names) come from result files; the numeric ones are never negative, so CsvText leaves them as
// numbers.
Row Keys(const result::PointResult& p) {
  Row row = {Text(p.id)};
  for (const Field& f : AxisFields(p.point)) row.push_back(Text(f.second));
  return row;
}

Row KeyNames() {
  Row names = {"point_id"};
  for (const Field& f : AxisFields(Point{})) names.push_back(f.first);
  return names;
}

void Append(Row* row, const Row& more) { row->insert(row->end(), more.begin(), more.end()); }

const Row& StatNames() {
  // Hand-aligned: clang-format would break these short lines apart.
  // clang-format off
  static const Row names = {
      "iters", "warmup", "repeats", "correct", "checked_iters",
      "loop_us", "p50_us", "p95_us", "p99_us", "min_us", "max_us", "mean_us", "stddev_us", "cv", "ci95_lo_us",
      "ci95_hi_us", "rank_mean_p50_us", "loop_wall_per_op_us",
      "algbw_gbps", "busbw_gbps", "aggregate_algbw_gbps", "aggregate_busbw_gbps",
      "wall_s", "cpu_saturation", "threads_per_core", "start_skew_us", "slowest_group", "slowest_rank",
      // The busiest rank's traffic per op (point_traffic.h); empty where nothing measured it.
      "traffic_source", "sent_bytes_per_op", "recv_bytes_per_op", "model_sent_bytes_per_op",
      "model_recv_bytes_per_op", "traffic_vs_model",
      // The ranks' wait for a CPU and their cgroup's CPU limit (CpuCells); empty where not measured or not set.
      "runqueue_wait_us", "cpu_quota", "cpu_throttled_share",
      // Transfer and arrival apart, and busy time (issue 52: ArrivalCells); empty in files without them.
      "transfer_p50_us", "transfer_p99_us", "arrival_skew_p50_us", "arrival_skew_p99_us", "skew_method",
      "busy_union_s", "busy_aggregate_busbw_gbps",
      // What the point's communicators hold in memory (CommMemoryCells); empty where not recorded.
      "comm_rss_bytes", "comm_rss_bytes_per_group", "comm_device_bytes",
  };
  // clang-format on
  return names;
}

Row Stats(const result::PointResult& p) {
  const Summary& t = p.time_us;
  return {std::to_string(p.iters),
          std::to_string(p.warmup),
          std::to_string(std::max<size_t>(1, p.repeat_p50_us.size())),
          p.correct ? "true" : "false",
          std::to_string(p.checked_iters),
          Num(t.mean),
          Num(t.p50),
          Num(t.p95),
          Num(t.p99),
          Num(t.min),
          Num(t.max),
          Num(t.mean),
          Num(t.stddev),
          Num(t.cv),
          Num(t.ci95_lo),
          Num(t.ci95_hi),
          Num(p.time_us_rank_mean.p50),
          p.loop_us_per_op ? Num(*p.loop_us_per_op) : "",
          Num(p.algbw_gbps),
          Num(p.busbw_gbps),
          Num(p.aggregate_algbw_gbps),
          Num(p.aggregate_busbw_gbps),
          Num(p.wall_s),
          Num(p.cpu.saturation),
          Num(p.cpu.threads_per_core),
          Num(p.skew.start_skew_us),
          std::to_string(p.skew.slowest_group),
          std::to_string(p.skew.slowest_rank)};
}

// A figure recorded as negative where it is not known: an empty cell then.
std::string Known(double v) { return v < 0 ? std::string() : Num(v); }

Row TrafficCells(const result::PointResult& p) {
  const std::optional<PointTraffic> t = BusiestRankTraffic(p);
  if (!t) return Row(6, "");
  return {Text(t->source),
          Known(t->sent_bytes_per_op),
          Known(t->recv_bytes_per_op),
          Known(t->model_sent_bytes_per_op),
          Known(t->model_recv_bytes_per_op),
          Known(t->ratio)};
}

Row CpuCells(const result::PointResult& p) {
  const result::CpuUsage& c = p.cpu;
  return {Known(c.runqueue_wait_us_per_iter), c.cpu_quota > 0 ? Num(c.cpu_quota) : "", Known(c.throttled_share)};
}

// --- Transfer, arrival and busy time (issue 52) ---
Row ArrivalCells(const result::PointResult& p) {
  Row row(5, "");
  if (p.arrival) {
    row = {Num(p.arrival->transfer_us.p50), Num(p.arrival->transfer_us.p99), Num(p.arrival->skew_us.p50),
           Num(p.arrival->skew_us.p99), Text(std::string(NameOf(result::kSkewMethodNames, p.arrival->method)))};
  }
  if (p.busy_time) {
    Append(&row, {Num(p.busy_time->union_s), Num(p.busy_time->aggregate_busbw_gbps)});
  } else {
    Append(&row, {"", ""});
  }
  return row;
}
// --- communicator memory (issue 52) ---
Row CommMemoryCells(const result::PointResult& p) {
  if (!p.comm_memory) return Row(3, "");
  const result::CommMemory& m = *p.comm_memory;
  return {std::to_string(m.rss_bytes), Num(m.RssBytesPerGroup()),
          m.device_bytes >= 0 ? std::to_string(m.device_bytes) : ""};
}
// --- end communicator memory ---

void PointRows(const result::ResultFile& file, std::string* out) {
  Row header = KeyNames();
  Append(&header, StatNames());
  *out += Line(header);
  for (const result::PointResult& p : file.points) {
    Row row = Keys(p);
    Append(&row, Stats(p));
    Append(&row, TrafficCells(p));
    Append(&row, CpuCells(p));
    Append(&row, ArrivalCells(p));  // issue 52
    Append(&row, CommMemoryCells(p));
    *out += Line(row);
  }
}

void RepeatRows(const result::ResultFile& file, std::string* out) {
  Row header = KeyNames();
  Append(&header, {"repeat", "p50_us", "mean_us"});
  *out += Line(header);
  for (const result::PointResult& p : file.points) {
    const std::vector<double> p50 = result::RepeatMedians(p);
    for (size_t r = 0; r < p50.size(); ++r) {
      Row row = Keys(p);
      const double mean = r < p.repeat_mean_us.size() ? p.repeat_mean_us[r] : p.time_us.mean;
      Append(&row, {std::to_string(r + 1), Num(p50[r]), Num(mean)});
      *out += Line(row);
    }
  }
}

void SampleRows(const result::ResultFile& file, std::string* out) {
  Row header = KeyNames();
  Append(&header, {"rank", "group", "group_rank", "host", "iteration", "time_us"});
  *out += Line(header);
  for (const result::PointResult& p : file.points) {
    const Row keys = Keys(p);
    const auto& per_rank = p.samples_us.per_rank;
    for (size_t r = 0; r < per_rank.size(); ++r) {
      const result::RankTime* t = r < p.per_rank.size() ? &p.per_rank[r] : nullptr;
      const int group_size = std::max(1, p.point.group_size);
      const int rank = t ? t->rank : static_cast<int>(r);
      Row rank_cols = {std::to_string(rank), std::to_string(t ? t->group : rank / group_size),
                       std::to_string(t ? t->group_rank : rank % group_size), Text(t ? t->host : "")};
      for (size_t i = 0; i < per_rank[r].size(); ++i) {
        Row row = keys;
        Append(&row, rank_cols);
        Append(&row, {std::to_string(i), Num(per_rank[r][i])});
        *out += Line(row);
      }
    }
  }
}

}  // namespace

std::string ToCsv(const result::ResultFile& file, CsvRows rows) {
  std::string out;
  // Hand-aligned: clang-format would break these short lines apart.
  // clang-format off
  switch (rows) {
    case CsvRows::kPoints: PointRows(file, &out); break;
    case CsvRows::kRepeats: RepeatRows(file, &out); break;
    case CsvRows::kSamples: SampleRows(file, &out); break;
  }
  // clang-format on
  return out;
}

}  // namespace commbench::exporting
