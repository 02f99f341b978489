#include "lib/measure/aggregate.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace commbench {
namespace {

using nlohmann::json;

json Rank(int rank, int group, std::vector<double> samples, double cpu_s, double start_s, double end_s) {
  return {{"rank", rank},         {"group", group},   {"group_rank", rank % 2},
          {"pid", 100 + rank},    {"correct", true},  {"error", ""},
          {"algo", "ring"},       {"warmup", 5},      {"samples_us", samples},
          {"cpu_user_s", cpu_s},  {"cpu_sys_s", 0.0}, {"vol_ctx", 30.0},
          {"invol_ctx", 3.0},     {"affinity", "0-1"}, {"setup_s", 0.01},
          {"start_ns", static_cast<int64_t>(start_s * 1e9)}, {"end_ns", static_cast<int64_t>(end_s * 1e9)}};
}

TEST(AggregateTest, JobTimeIsThePerIterationMaxAcrossRanks) {
  Point p;
  p.backend = "gloo";
  p.groups = 2;
  p.group_size = 2;
  p.bytes = 1000000;
  p.count = 250000;
  std::vector<json> ranks = {Rank(0, 0, {10, 10, 10}, 0.5, 1.0, 2.0), Rank(1, 0, {10, 30, 10}, 0.5, 1.0, 2.0),
                             Rank(2, 1, {20, 10, 10}, 0.5, 1.0, 2.0), Rank(3, 1, {10, 10, 40}, 0.5, 1.0, 2.0)};
  AggregateOptions options;
  options.cores_available = 2;
  json out = AggregatePoint(p, ranks, options);
  // Per-iteration max: {20, 30, 40}; mean across ranks: {12.5, 15, 17.5}.
  EXPECT_DOUBLE_EQ(out["time_us"]["p50"].get<double>(), 30);
  EXPECT_DOUBLE_EQ(out["time_us"]["max"].get<double>(), 40);
  EXPECT_DOUBLE_EQ(out["time_us_rank_mean"]["p50"].get<double>(), 15);
  // 1 MB in 30 us over groups of 2: algbw 33.33 GB/s, busbw x 2(n-1)/n = x1; two groups in aggregate.
  EXPECT_NEAR(out["algbw_gbps"].get<double>(), 1e6 / 30e-6 / 1e9, 1e-9);
  EXPECT_NEAR(out["aggregate_busbw_gbps"].get<double>(), 2 * 1e6 / 30e-6 / 1e9, 1e-9);
  // 4 ranks x 0.5 CPU s over 2 cores x 1 s wall: saturated.
  EXPECT_DOUBLE_EQ(out["cpu"]["saturation"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(out["cpu"]["threads_per_core"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(out["cpu"]["vol_ctx_per_iter"].get<double>(), 10.0);
  EXPECT_EQ(out["per_group"][1]["p50_us"].get<double>(), 20);  // group 1: max per iteration {20, 10, 40}
  EXPECT_EQ(out["skew"]["slowest_group"], 1);
  EXPECT_EQ(out["iters"], 3);
  EXPECT_TRUE(out["correct"].get<bool>());
  EXPECT_EQ(out["samples_us"]["per_rank"].size(), 4u);
}

// Groups taking turns: iteration i of group 0 and of group 1 happened at different times, so the job time is
// not their pairwise max but each group's own per-iteration times, pooled.
TEST(AggregateTest, SequentialGroupsPoolTheirOwnIterations) {
  Point p;
  p.backend = "gloo";
  p.groups = 2;
  p.group_size = 2;
  p.bytes = 1000;
  p.count = 250;
  p.concurrency = Concurrency::kSequential;
  std::vector<json> ranks = {Rank(0, 0, {10, 10, 90}, 0.1, 1.0, 2.0), Rank(1, 0, {10, 12, 10}, 0.1, 1.0, 2.0),
                             Rank(2, 1, {90, 10, 10}, 0.1, 2.0, 3.0), Rank(3, 1, {10, 10, 14}, 0.1, 2.0, 3.0)};
  json out = AggregatePoint(p, ranks, AggregateOptions());
  // Group 0: {10, 12, 90}; group 1: {90, 10, 14}; pooled {10, 10, 12, 14, 90, 90}: median 13, six samples.
  // (Paired across groups it would be {90, 12, 90}: median 90, from two single slow iterations.)
  EXPECT_DOUBLE_EQ(out["time_us"]["p50"].get<double>(), 13);
  EXPECT_DOUBLE_EQ(out["time_us"]["max"].get<double>(), 90);
  EXPECT_EQ(out["per_group"][0]["p50_us"].get<double>(), 12);
  EXPECT_EQ(out["iters"], 3);
  // One group moves at a time: the aggregate is one group's bandwidth.
  EXPECT_DOUBLE_EQ(out["aggregate_busbw_gbps"].get<double>(), out["busbw_gbps"].get<double>());
  p.concurrency = Concurrency::kConcurrent;
  EXPECT_DOUBLE_EQ(AggregatePoint(p, ranks, AggregateOptions())["time_us"]["p50"].get<double>(), 90);
}

TEST(AggregateTest, WrongRanksAndSampleCap) {
  Point p;
  p.backend = "gloo";
  p.groups = 1;
  p.group_size = 2;
  p.bytes = 400;
  p.count = 100;
  json bad = Rank(1, 0, {1, 2, 3, 4}, 0.1, 0, 1);
  bad["correct"] = false;
  bad["error"] = "last timed iteration: 1 of 100 elements wrong";
  AggregateOptions options;
  options.sample_cap = 2;
  json out = AggregatePoint(p, {Rank(0, 0, {1, 2, 3, 4}, 0.1, 0, 1), bad}, options);
  EXPECT_FALSE(out["correct"].get<bool>());
  ASSERT_EQ(out["errors"].size(), 1u);
  EXPECT_EQ(out["errors"][0], "rank 1: last timed iteration: 1 of 100 elements wrong");
  EXPECT_EQ(out["samples_us"]["per_rank"][0], json({1.0, 2.0}));
  EXPECT_EQ(out["samples_us"]["cap"], 2);
}

}  // namespace
}  // namespace commbench
