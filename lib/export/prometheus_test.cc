#include "lib/export/prometheus.h"

#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace commbench::exporting {
namespace {

result::ResultFile Load(const std::string& path) {
  auto file = result::LoadResultFile(path);
  EXPECT_TRUE(file.ok()) << file.status().message();
  return file.ok() ? *file : result::ResultFile{};
}

struct Parsed {
  std::map<std::string, std::string> type;  // family -> type
  std::map<std::string, double> series;     // "name{labels}" -> value
  std::set<std::string> label_names;
};

// The exposition format's rules this writer must keep: HELP and TYPE once per family before its samples, a
// family's samples together, valid names, no series twice, a float value on every sample line.
Parsed ParseExposition(const std::string& text) {
  Parsed out;
  static const std::regex help(R"(# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) .+)");
  static const std::regex type(R"(# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (gauge|counter|summary|histogram|untyped))");
  static const std::regex sample(R"(([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+))");
  static const std::regex label(R"re(([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?)re");
  std::istringstream in(text);
  std::string line, current;
  std::set<std::string> closed;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_match(line, m, help)) {
      EXPECT_FALSE(closed.count(m[1])) << "family given twice: " << m[1];
      if (!current.empty()) closed.insert(current);
      current = m[1];
    } else if (std::regex_match(line, m, type)) {
      EXPECT_EQ(m[1], current) << line;
      out.type[m[1]] = m[2];
    } else if (std::regex_match(line, m, sample)) {
      const std::string name = m[1];
      const std::string family =
          out.type[current] == "summary" ? std::regex_replace(name, std::regex("_(sum|count)$"), "") : name;
      EXPECT_EQ(family, current) << "sample outside its family: " << line;
      const std::string labels = m[3];
      for (std::sregex_iterator it(labels.begin(), labels.end(), label), end; it != end; ++it) {
        out.label_names.insert((*it)[1]);
      }
      EXPECT_TRUE(out.series.emplace(name + "{" + labels + "}", std::stod(m[4])).second) << "series twice: " << line;
    } else {
      ADD_FAILURE() << "not exposition format: '" << line << "'";
    }
  }
  return out;
}

TEST(PrometheusTest, FollowsTheExpositionFormatAndNamingConventions) {
  const Parsed p = ParseExposition(ToPrometheusText(Load("reports/testdata/real_sweep_g1-4.json")));
  ASSERT_FALSE(p.type.empty());
  const std::regex base_unit(
      "commbench(_[a-z_]*)?(_seconds|_bytes_per_second|_info|_passed|_correct|_complete|_points|_iterations|_repeats|_"
      "score|_bytes|_ratio)");
  for (const auto& [name, type] : p.type) {
    EXPECT_TRUE(std::regex_match(name, base_unit)) << name << ": not in a base unit";
    EXPECT_EQ(name.find("_us"), std::string::npos) << name;
    EXPECT_EQ(name.find("gbps"), std::string::npos) << name;
  }
  // Bounded labels only: no point id, pid, rank of a sample, run id or timestamp.
  const std::set<std::string> bounded = {"backend",  "op",    "algo",    "dtype",  "groups",      "group_size",
                                         "size",     "sync",  "phase",   "reduce", "concurrency", "ranks_per_process",
                                         "pin",      "cpus",  "stream",  "h2d",    "graph",       "host",
                                         "quantile", "tool",  "version", "commit", "cpu_model",   "cores_online",
                                         "profile",  "check", "kind",    "peer",   "rank",        "source"};
  for (const std::string& l : p.label_names) EXPECT_TRUE(bounded.count(l)) << "unbounded label " << l;
}

TEST(PrometheusTest, CarriesThePointsFiguresInBaseUnits) {
  const result::ResultFile file = Load("reports/testdata/real_sweep_g1-4.json");
  const Parsed p = ParseExposition(ToPrometheusText(file));
  const result::PointResult& first = file.points.front();
  const std::string labels = "backend=\"gloo\",op=\"allreduce\",algo=\"" + first.point.algo +
                             "\",dtype=\"f32\",groups=\"" + std::to_string(first.point.groups) +
                             "\",group_size=\"2\",size=\"" + std::to_string(first.point.bytes) + "\",sync=\"none\"";
  ASSERT_TRUE(p.series.count("commbench_busbw_bytes_per_second{" + labels + "}")) << labels;
  EXPECT_DOUBLE_EQ(p.series.at("commbench_busbw_bytes_per_second{" + labels + "}"), first.busbw_gbps * 1e9);
  EXPECT_NEAR(p.series.at("commbench_op_duration_seconds{" + labels + ",quantile=\"0.5\"}"), first.time_us.p50 * 1e-6,
              0.5e-9);  // to the ns
  EXPECT_DOUBLE_EQ(p.series.at("commbench_op_duration_seconds_count{" + labels + "}"),
                   static_cast<double>(first.time_us.n));
  EXPECT_NEAR(p.series.at("commbench_op_loop_cost_seconds{" + labels + "}"), first.time_us.mean * 1e-6, 0.5e-9);
  EXPECT_DOUBLE_EQ(p.series.at("commbench_run_timestamp_seconds{}"), 1795251986);  // started_at 2026-11-21T09:06:26Z
  EXPECT_EQ(p.type.at("commbench_op_duration_seconds"), "summary");
  EXPECT_TRUE(p.series.count("commbench_info{tool=\"commbench\",version=\"" + file.header.tool.version +
                             "\",commit=\"" + file.header.tool.commit + "\"}"));
  size_t correct = 0;
  for (const auto& [series, value] : p.series) correct += series.rfind("commbench_point_correct{", 0) == 0;
  EXPECT_EQ(correct, file.points.size());
}

TEST(PrometheusTest, CarriesTheBusiestRanksTrafficAndItsModel) {
  result::ResultFile file = Load("reports/testdata/real_sweep_g1-4.json");
  result::RankTraffic t;
  t.source = "tcp_info";
  t.ops = 4;
  t.sent_bytes = t.recv_bytes = 1604;
  t.model_sent_bytes_per_op = t.model_recv_bytes_per_op = 400;
  for (auto& point : file.points) point.per_rank.front().traffic = t;
  const Parsed p = ParseExposition(ToPrometheusText(file));
  const result::PointResult& first = file.points.front();
  const std::string labels = "backend=\"gloo\",op=\"allreduce\",algo=\"" + first.point.algo +
                             "\",dtype=\"f32\",groups=\"" + std::to_string(first.point.groups) +
                             "\",group_size=\"2\",size=\"" + std::to_string(first.point.bytes) + "\",sync=\"none\"";
  EXPECT_DOUBLE_EQ(p.series.at("commbench_rank_sent_per_op_bytes{" + labels + ",source=\"tcp_info\"}"), 401);
  EXPECT_DOUBLE_EQ(p.series.at("commbench_rank_model_sent_per_op_bytes{" + labels + "}"), 400);
  EXPECT_DOUBLE_EQ(p.series.at("commbench_traffic_vs_model_ratio{" + labels + "}"), 1.0025);
}

// The ranks' CPU: saturation always, the run-queue wait where measured, a cgroup quota and its throttling where
// one was set (absent otherwise: no series of 0 that reads as "no CPU").
TEST(PrometheusTest, CarriesTheRanksCpuAndACgroupQuotaWhereSet) {
  result::ResultFile file = Load("reports/testdata/real_sweep_g1-4.json");
  const result::PointResult& first = file.points.front();
  const std::string labels = "backend=\"gloo\",op=\"allreduce\",algo=\"" + first.point.algo +
                             "\",dtype=\"f32\",groups=\"" + std::to_string(first.point.groups) +
                             "\",group_size=\"2\",size=\"" + std::to_string(first.point.bytes) + "\",sync=\"none\"";
  const Parsed none = ParseExposition(ToPrometheusText(file));
  EXPECT_DOUBLE_EQ(none.series.at("commbench_point_cpu_saturation_ratio{" + labels + "}"), first.cpu.saturation);
  EXPECT_FALSE(none.series.count("commbench_point_cpu_quota_cores{" + labels + "}"));
  EXPECT_FALSE(none.series.count("commbench_point_cpu_throttled_ratio{" + labels + "}"));
  for (auto& point : file.points) {
    point.cpu.cpu_quota = 0.5;
    point.cpu.throttled_share = 0.75;
    point.cpu.runqueue_wait_us_per_iter = 120;
  }
  const Parsed quota = ParseExposition(ToPrometheusText(file));
  EXPECT_DOUBLE_EQ(quota.series.at("commbench_point_cpu_quota_cores{" + labels + "}"), 0.5);
  EXPECT_DOUBLE_EQ(quota.series.at("commbench_point_cpu_throttled_ratio{" + labels + "}"), 0.75);
  EXPECT_NEAR(quota.series.at("commbench_point_runqueue_wait_seconds{" + labels + "}"), 120e-6, 1e-12);
  EXPECT_EQ(quota.type.at("commbench_point_cpu_throttled_ratio"), "gauge");
}

TEST(PrometheusTest, PointsThatDifferInAnotherAxisStayApart) {
  result::ResultFile file = Load("reports/testdata/real_sweep_g1-4.json");
  result::PointResult turns = file.points.front();
  turns.point.concurrency = Concurrency::kSequential;
  turns.busbw_gbps = 0.25;
  file.points.push_back(turns);
  const Parsed p = ParseExposition(ToPrometheusText(file));
  size_t sequential = 0;
  for (const auto& [series, value] : p.series) {
    if (series.find("concurrency=\"sequential\"") != std::string::npos && series.rfind("commbench_busbw", 0) == 0) {
      ++sequential;
      EXPECT_DOUBLE_EQ(value, 0.25e9);
    }
  }
  EXPECT_EQ(sequential, 1u);
}

TEST(PrometheusTest, EscapesLabelValues) {
  result::ResultFile file = Load("reports/testdata/real_sweep_g1-4.json");
  file.header.environment.host = "a\"b\\c\nd";
  const std::string text = ToPrometheusText(file);
  // The newline is made visible first (\x0a), then every backslash escaped as the format asks.
  EXPECT_NE(text.find("host=\"a\\\"b\\\\c\\\\x0ad\""), std::string::npos) << text.substr(0, 2000);
  ParseExposition(text);
  // Bytes that are not UTF-8 (a host name's) would make node_exporter drop the file: shown as \xNN.
  file.header.environment.host = "node\xff\xc3";
  const std::string latin = ToPrometheusText(file);
  EXPECT_NE(latin.find("host=\"node\\\\xff\\\\xc3\""), std::string::npos);
  EXPECT_EQ(latin.find('\xff'), std::string::npos) << "a byte of the host name reached the file raw";
  ParseExposition(latin);
}

TEST(PrometheusTest, AcceptanceVerdictsAndHostsAreGauges) {
  const result::ResultFile file = Load("reports/testdata/accept_vcluster_link.json");
  const Parsed p = ParseExposition(ToPrometheusText(file));
  const auto& a = *file.trailer.acceptance;
  EXPECT_DOUBLE_EQ(p.series.at("commbench_acceptance_passed{profile=\"" + a["profile_name"].get<std::string>() + "\"}"),
                   a["verdict"] == "pass" ? 1 : 0);
  ASSERT_FALSE(a["hosts"].empty());
  for (const auto& h : a["hosts"]) {
    const std::string key = "commbench_acceptance_host_passed{host=\"" + h["host"].get<std::string>() + "\"}";
    ASSERT_TRUE(p.series.count(key)) << key;
    EXPECT_DOUBLE_EQ(p.series.at(key), h["verdict"] == "pass" ? 1 : 0);
  }
  size_t checks = 0;
  for (const auto& [series, value] : p.series) checks += series.rfind("commbench_acceptance_check_passed{", 0) == 0;
  EXPECT_EQ(checks, a["checks"].size());
  EXPECT_TRUE(p.label_names.count("phase"));
}

}  // namespace
}  // namespace commbench::exporting
