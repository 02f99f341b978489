#include "lib/measure/aggregate.h"

#include <gtest/gtest.h>

namespace commbench {
namespace {

using result::PointResult;
using result::RankSamples;

RankSamples Rank(int rank, int group, std::vector<double> samples, double cpu_s, double start_s, double end_s) {
  RankSamples r;
  r.rank = rank;
  r.group = group;
  r.group_rank = rank % 2;
  r.pid = 100 + rank;
  r.algo = "ring";
  r.warmup = 5;
  r.samples_us = std::move(samples);
  r.cpu_user_s = cpu_s;
  r.vol_ctx = 30;
  r.invol_ctx = 3;
  r.affinity = "0-1";
  r.setup_s = 0.01;
  r.start_ns = static_cast<int64_t>(start_s * 1e9);
  r.end_ns = static_cast<int64_t>(end_s * 1e9);
  return r;
}

TEST(AggregateTest, JobTimeIsThePerIterationMaxAcrossRanks) {
  Point p;
  p.backend = "gloo";
  p.groups = 2;
  p.group_size = 2;
  p.bytes = 1000000;
  p.count = 250000;
  std::vector<RankSamples> ranks = {Rank(0, 0, {10, 10, 10}, 0.5, 1.0, 2.0), Rank(1, 0, {10, 30, 10}, 0.5, 1.0, 2.0),
                             Rank(2, 1, {20, 10, 10}, 0.5, 1.0, 2.0), Rank(3, 1, {10, 10, 40}, 0.5, 1.0, 2.0)};
  AggregateOptions options;
  options.cores_available = 2;
  PointResult out = AggregatePoint(p, ranks, options);
  // Per-iteration max: {20, 30, 40}; mean across ranks: {12.5, 15, 17.5}.
  EXPECT_DOUBLE_EQ(out.time_us.p50, 30);
  EXPECT_DOUBLE_EQ(out.time_us.max, 40);
  EXPECT_DOUBLE_EQ(out.time_us_rank_mean.p50, 15);
  // 1 MB in 30 us over groups of 2: algbw 33.33 GB/s, busbw x 2(n-1)/n = x1; two groups in aggregate.
  EXPECT_NEAR(out.algbw_gbps, 1e6 / 30e-6 / 1e9, 1e-9);
  EXPECT_NEAR(out.aggregate_busbw_gbps, 2 * 1e6 / 30e-6 / 1e9, 1e-9);
  // 4 ranks x 0.5 CPU s over 2 cores x 1 s wall: saturated.
  EXPECT_DOUBLE_EQ(out.cpu.saturation, 1.0);
  EXPECT_DOUBLE_EQ(out.cpu.threads_per_core, 2.0);
  EXPECT_DOUBLE_EQ(out.cpu.vol_ctx_per_iter, 10.0);
  EXPECT_EQ(out.per_group[1].p50_us, 20);  // group 1: max per iteration {20, 10, 40}
  EXPECT_EQ(out.skew.slowest_group, 1);
  EXPECT_EQ(out.iters, 3);
  EXPECT_TRUE(out.correct);
  EXPECT_EQ(out.samples_us.per_rank.size(), 4u);
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
  std::vector<RankSamples> ranks = {Rank(0, 0, {10, 10, 90}, 0.1, 1.0, 2.0), Rank(1, 0, {10, 12, 10}, 0.1, 1.0, 2.0),
                             Rank(2, 1, {90, 10, 10}, 0.1, 2.0, 3.0), Rank(3, 1, {10, 10, 14}, 0.1, 2.0, 3.0)};
  PointResult out = AggregatePoint(p, ranks, AggregateOptions());
  // Group 0: {10, 12, 90}; group 1: {90, 10, 14}; pooled {10, 10, 12, 14, 90, 90}: median 13, six samples.
  // (Paired across groups it would be {90, 12, 90}: median 90, from two single slow iterations.)
  EXPECT_DOUBLE_EQ(out.time_us.p50, 13);
  EXPECT_DOUBLE_EQ(out.time_us.max, 90);
  EXPECT_EQ(out.per_group[0].p50_us, 12);
  EXPECT_EQ(out.iters, 3);
  // One group moves at a time: the aggregate is one group's bandwidth.
  EXPECT_DOUBLE_EQ(out.aggregate_busbw_gbps, out.busbw_gbps);
  p.concurrency = Concurrency::kConcurrent;
  EXPECT_DOUBLE_EQ(AggregatePoint(p, ranks, AggregateOptions()).time_us.p50, 90);
}

TEST(AggregateTest, WrongRanksAndSampleCap) {
  Point p;
  p.backend = "gloo";
  p.groups = 1;
  p.group_size = 2;
  p.bytes = 400;
  p.count = 100;
  RankSamples bad = Rank(1, 0, {1, 2, 3, 4}, 0.1, 0, 1);
  bad.correct = false;
  bad.error = "last timed iteration: 1 of 100 elements wrong";
  bad.checked_iters = 3;
  RankSamples good = Rank(0, 0, {1, 2, 3, 4}, 0.1, 0, 1);
  good.checked_iters = 4;
  AggregateOptions options;
  options.sample_cap = 2;
  PointResult out = AggregatePoint(p, {good, bad}, options);
  EXPECT_FALSE(out.correct);
  EXPECT_EQ(out.checked_iters, 3);  // the fewest of any rank
  EXPECT_EQ(out.per_rank[0].checked_iters, 4);
  ASSERT_EQ(out.errors.size(), 1u);
  EXPECT_EQ(out.errors[0], "rank 1: last timed iteration: 1 of 100 elements wrong");
  EXPECT_EQ(out.samples_us.per_rank[0], std::vector<double>({1.0, 2.0}));
  EXPECT_EQ(out.samples_us.cap, 2);
}

}  // namespace
}  // namespace commbench
