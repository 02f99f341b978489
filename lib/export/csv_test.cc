#include "lib/export/csv.h"

#include <gtest/gtest.h>

#include <sstream>

namespace commbench::exporting {
namespace {

result::ResultFile Load(const std::string& path) {
  auto file = result::LoadResultFile(path);
  EXPECT_TRUE(file.ok()) << file.status().message();
  return file.ok() ? *file : result::ResultFile{};
}

// RFC 4180 records: CRLF-terminated, quoted fields may hold commas, quotes (doubled) and line breaks.
std::vector<std::vector<std::string>> ParseCsv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    // Hand-aligned: clang-format would break these short lines apart.
    // clang-format off
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') field += '"', ++i;
      else if (c == '"') quoted = false;
      else field += c;
    } else if (c == '"') {
      // clang-format on
      EXPECT_TRUE(field.empty()) << "a quote inside an unquoted field at " << i;
      quoted = true;
    } else if (c == ',') {
      rows.back().push_back(field), field.clear();
    } else if (c == '\r') {
      EXPECT_EQ(text[i + 1], '\n') << "CR without LF at " << i;
      rows.back().push_back(field), field.clear();
      rows.emplace_back();
      ++i;
    } else {
      EXPECT_NE(c, '\n') << "LF without CR at " << i;
      field += c;
    }
  }
  EXPECT_TRUE(rows.back().empty() && field.empty()) << "the last record is not terminated";
  rows.pop_back();
  return rows;
}

size_t Column(const std::vector<std::string>& header, const std::string& name) {
  for (size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return i;
  }
  ADD_FAILURE() << "no column " << name;
  return 0;
}

TEST(CsvTest, QuotesOnlyWhatRfc4180Requires) {
  EXPECT_EQ(CsvField("gloo"), "gloo");
  EXPECT_EQ(CsvField("0,1"), "\"0,1\"");
  EXPECT_EQ(CsvField("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(CsvField("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(CsvField(""), "");
}

// Text from a result file that a spreadsheet would run as a formula is written as quoted text (OWASP); the numbers
// commbench formats stay numbers, a negative one too.
TEST(CsvTest, TextCellsCannotBeFormulasNumbersStayNumbers) {
  result::ResultFile file = Load("reports/testdata/real_sweep_g1-4.json");
  ASSERT_FALSE(file.points.empty());
  file.points[0].id = "=HYPERLINK(\"http://e\",\"x\")";
  file.points[0].point.backend = "+gloo";
  file.points[0].point.phase = "@SUM(A1)";
  file.points[0].time_us.min = -3.5;
  const std::string text = ToCsv(file, CsvRows::kPoints);
  EXPECT_NE(text.find("\"'=HYPERLINK(\"\"http://e\"\",\"\"x\"\")\",\"'+gloo\","), std::string::npos) << text;
  const auto rows = ParseCsv(text);
  ASSERT_GE(rows.size(), 2u);
  EXPECT_EQ(rows[1][Column(rows[0], "point_id")], "'=HYPERLINK(\"http://e\",\"x\")");
  EXPECT_EQ(rows[1][Column(rows[0], "backend")], "'+gloo");
  EXPECT_EQ(rows[1][Column(rows[0], "phase")], "'@SUM(A1)");
  EXPECT_NE(text.find(",-3.5,"), std::string::npos) << "a number we format is not quoted";
  EXPECT_EQ(rows[1][Column(rows[0], "min_us")], "-3.5");
}

// The documented columns (docs/export.md), in order: a reader's code depends on them.
TEST(CsvTest, PointRowsHaveTheDocumentedColumns) {
  const result::ResultFile file = Load("reports/testdata/real_sweep_g1-4.json");
  const auto rows = ParseCsv(ToCsv(file, CsvRows::kPoints));
  // Hand-aligned: clang-format would break these short lines apart.
  // clang-format off
  const std::vector<std::string> expected = {
      "point_id", "backend", "op", "algo", "dtype", "reduce", "size_bytes", "count", "groups", "group_size", "world",
      "in_place", "sync", "concurrency", "ranks_per_process", "pin", "cpus", "device", "stream", "h2d", "h2d_bytes",
      "graph", "phase", "iters", "warmup", "repeats", "correct", "checked_iters", "loop_us", "p50_us", "p95_us",
      "p99_us", "min_us", "max_us", "mean_us", "stddev_us", "cv", "ci95_lo_us", "ci95_hi_us", "rank_mean_p50_us",
      "loop_wall_per_op_us", "algbw_gbps", "busbw_gbps", "aggregate_algbw_gbps", "aggregate_busbw_gbps", "wall_s",
      "cpu_saturation", "threads_per_core", "start_skew_us", "slowest_group", "slowest_rank", "traffic_source",
      "sent_bytes_per_op", "recv_bytes_per_op", "model_sent_bytes_per_op", "model_recv_bytes_per_op",
      "traffic_vs_model", "runqueue_wait_us", "cpu_quota", "cpu_throttled_share", "transfer_p50_us",
      "transfer_p99_us", "arrival_skew_p50_us", "arrival_skew_p99_us", "skew_method", "busy_union_s",
      "busy_aggregate_busbw_gbps", "comm_rss_bytes", "comm_rss_bytes_per_group", "comm_device_bytes"};
  // clang-format on
  ASSERT_EQ(rows.size(), file.points.size() + 1);
  EXPECT_EQ(rows[0], expected);
  for (size_t i = 1; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].size(), expected.size()) << "row " << i;
    const result::PointResult& p = file.points[i - 1];
    EXPECT_EQ(rows[i][0], p.id);
    EXPECT_EQ(std::stoi(rows[i][Column(expected, "groups")]), p.point.groups);
    EXPECT_EQ(std::stoull(rows[i][Column(expected, "size_bytes")]), p.point.bytes);
    EXPECT_EQ(std::stod(rows[i][Column(expected, "loop_us")]), p.time_us.mean);
    EXPECT_EQ(std::stod(rows[i][Column(expected, "busbw_gbps")]), p.busbw_gbps);
  }
}

// The ranks' CPU wait and their cgroup's limit: empty where not measured or not set, the figures where they are.
TEST(CsvTest, CpuColumnsAreEmptyWithoutAQuota) {
  result::ResultFile file = Load("reports/testdata/real_sweep_g1-4.json");
  file.points[0].cpu.runqueue_wait_us_per_iter = -1;
  file.points[1].cpu.runqueue_wait_us_per_iter = 12.5;
  file.points[1].cpu.cpu_quota = 0.5;
  file.points[1].cpu.throttled_share = 0.75;
  const auto rows = ParseCsv(ToCsv(file, CsvRows::kPoints));
  const std::vector<std::string>& header = rows[0];
  for (const char* column : {"runqueue_wait_us", "cpu_quota", "cpu_throttled_share"}) {
    EXPECT_EQ(rows[1][Column(header, column)], "") << column;
  }
  EXPECT_EQ(std::stod(rows[2][Column(header, "runqueue_wait_us")]), 12.5);
  EXPECT_EQ(std::stod(rows[2][Column(header, "cpu_quota")]), 0.5);
  EXPECT_EQ(std::stod(rows[2][Column(header, "cpu_throttled_share")]), 0.75);
}

// Issue 52's transfer, arrival skew and busy time: empty in files without them, the figures where recorded.
TEST(CsvTest, ArrivalColumnsCarryTransferSkewAndBusyTime) {
  result::ResultFile file = Load("reports/testdata/real_sweep_g1-4.json");
  ASSERT_GE(file.points.size(), 2u);
  result::Arrival a;
  a.transfer_us = Summarize({10, 12, 14});
  a.skew_us = Summarize({2000, 2002, 2004});
  file.points[1].arrival = a;
  file.points[1].busy_time = result::BusyTime{0.5, 1.25, 2.5};
  const auto rows = ParseCsv(ToCsv(file, CsvRows::kPoints));
  const std::vector<std::string>& header = rows[0];
  for (const char* column : {"transfer_p50_us", "arrival_skew_p99_us", "skew_method", "busy_aggregate_busbw_gbps"}) {
    EXPECT_EQ(rows[1][Column(header, column)], "") << column;
  }
  EXPECT_EQ(std::stod(rows[2][Column(header, "transfer_p50_us")]), 12);
  EXPECT_EQ(std::stod(rows[2][Column(header, "arrival_skew_p50_us")]), 2002);
  EXPECT_EQ(std::stod(rows[2][Column(header, "arrival_skew_p99_us")]), a.skew_us.p99);
  EXPECT_EQ(rows[2][Column(header, "skew_method")], "clock");
  EXPECT_EQ(std::stod(rows[2][Column(header, "busy_union_s")]), 0.5);
  EXPECT_EQ(std::stod(rows[2][Column(header, "busy_aggregate_busbw_gbps")]), 2.5);
  EXPECT_EQ(std::stod(rows[2][Column(header, "aggregate_busbw_gbps")]), file.points[1].aggregate_busbw_gbps);
}

// The busiest rank's measured bytes per op, its model and their ratio; empty cells where nothing measured it.
TEST(CsvTest, TrafficColumnsCarryTheBusiestRank) {
  result::ResultFile file = Load("reports/testdata/real_sweep_g1-4.json");
  ASSERT_GE(file.points.size(), 2u);
  ASSERT_GE(file.points[0].per_rank.size(), 2u);
  result::RankTraffic quiet, busy;
  quiet.source = busy.source = "tcp_info";
  quiet.ops = busy.ops = 10;
  quiet.sent_bytes = quiet.recv_bytes = 1000;
  busy.sent_bytes = busy.recv_bytes = 4010;
  busy.model_sent_bytes_per_op = busy.model_recv_bytes_per_op = 400;
  file.points[0].per_rank[0].traffic = quiet;
  file.points[0].per_rank[1].traffic = busy;
  for (auto& rank : file.points[1].per_rank) rank.traffic.reset();
  const auto rows = ParseCsv(ToCsv(file, CsvRows::kPoints));
  const auto& header = rows[0];
  EXPECT_EQ(rows[1][Column(header, "traffic_source")], "tcp_info");
  EXPECT_EQ(std::stod(rows[1][Column(header, "sent_bytes_per_op")]), 401);
  EXPECT_EQ(std::stod(rows[1][Column(header, "model_sent_bytes_per_op")]), 400);
  EXPECT_NEAR(std::stod(rows[1][Column(header, "traffic_vs_model")]), 1.0025, 1e-9);
  EXPECT_EQ(rows[2][Column(header, "traffic_source")], "");
  EXPECT_EQ(rows[2][Column(header, "traffic_vs_model")], "");
}

TEST(CsvTest, AFieldWithACommaIsQuotedAndReadsBack) {
  result::ResultFile file = Load("reports/testdata/real_sweep_g1-4.json");
  file.points.front().point.cpus = "0,1";
  file.points.front().id = "an \"odd\" id";
  const auto rows = ParseCsv(ToCsv(file, CsvRows::kPoints));
  EXPECT_EQ(rows[1][Column(rows[0], "cpus")], "0,1");
  EXPECT_EQ(rows[1][0], "an \"odd\" id");
  EXPECT_EQ(rows[1].size(), rows[0].size());
}

TEST(CsvTest, OneRowPerRepeat) {
  result::ResultFile file = Load("reports/testdata/real_sweep_g1-4.json");
  file.points.front().repeat_p50_us = {10, 11, 12};
  file.points.front().repeat_mean_us = {20, 21, 22};
  const auto rows = ParseCsv(ToCsv(file, CsvRows::kRepeats));
  ASSERT_EQ(rows.size(), 1 + 3 + (file.points.size() - 1));  // older points count as one repeat
  const size_t repeat = Column(rows[0], "repeat"), p50 = Column(rows[0], "p50_us"), mean = Column(rows[0], "mean_us");
  EXPECT_EQ(rows[3][repeat], "3");
  EXPECT_EQ(rows[3][p50], "12.0");
  EXPECT_EQ(rows[3][mean], "22.0");
  EXPECT_EQ(std::stod(rows[4][p50]), file.points[1].time_us.p50);
}

TEST(CsvTest, OneRowPerKeptSample) {
  const result::ResultFile file = Load("reports/testdata/real_sweep_g1-4.json");
  const auto rows = ParseCsv(ToCsv(file, CsvRows::kSamples));
  size_t kept = 0;
  for (const auto& p : file.points) {
    for (const auto& r : p.samples_us.per_rank) kept += r.size();
  }
  ASSERT_GT(kept, 0u);
  ASSERT_EQ(rows.size(), kept + 1);
  const size_t rank = Column(rows[0], "rank"), it = Column(rows[0], "iteration"), t = Column(rows[0], "time_us");
  const auto& last_rank = file.points.back().samples_us.per_rank.back();
  EXPECT_EQ(std::stoi(rows.back()[rank]), static_cast<int>(file.points.back().samples_us.per_rank.size()) - 1);
  EXPECT_EQ(std::stoul(rows.back()[it]), last_rank.size() - 1);
  EXPECT_EQ(std::stod(rows.back()[t]), last_rank.back());
}

}  // namespace
}  // namespace commbench::exporting
