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

TEST(AggregateTest, HeadlineIsTheRankWhoseLoopTookLongest) {
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
  // Rank means 10, 16.7, 13.3, 20: rank 3 (group 1) is the headline. Mean across ranks: {12.5, 15, 17.5}.
  EXPECT_EQ(out.headline_rank, 3);
  EXPECT_EQ(out.headline_group, 1);
  EXPECT_DOUBLE_EQ(out.time_us.p50, 10);
  EXPECT_DOUBLE_EQ(out.time_us.max, 40);
  EXPECT_DOUBLE_EQ(out.time_us.mean, 20);
  EXPECT_DOUBLE_EQ(out.time_us_rank_mean.p50, 15);
  EXPECT_FALSE(out.time_us_world_max.has_value());  // no world barrier aligns the groups' iterations
  // Group 1's loop ran from 1 s to 2 s over 3 iterations.
  EXPECT_NEAR(*out.loop_us_per_op, 1e6 / 3, 1e-6);
  // Bandwidth from the loop cost (mean 20 us), not the p50 (10 us): 1 MB in 20 us over groups of 2 is algbw
  // 50 GB/s, busbw x 2(n-1)/n = x1; two groups in aggregate.
  EXPECT_NEAR(out.algbw_gbps, 1e6 / 20e-6 / 1e9, 1e-9);
  EXPECT_NEAR(out.busbw_gbps, out.algbw_gbps, 1e-9);
  EXPECT_NEAR(out.aggregate_busbw_gbps, 2 * 1e6 / 20e-6 / 1e9, 1e-9);
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

// Scenario A's trap: concurrent groups are not synchronised, so each group's occasional slow iteration falls at
// its own index. A max per index across groups would make nearly every iteration slow (p50 1000 us here, 3x the
// mean of any group's loop); the headline is one loop's own series, whose mean is that loop's cost.
TEST(AggregateTest, SlowIterationsOfConcurrentGroupsDoNotCompound) {
  Point p;
  p.backend = "gloo";
  p.groups = 4;
  p.group_size = 2;
  p.bytes = 400;
  p.count = 100;
  std::vector<RankSamples> ranks;
  for (int g = 0; g < 4; ++g) {
    // Group g is slow (1000 us) at iterations 4k + g and 100 us otherwise: a quarter of its iterations.
    std::vector<double> slow_at_g(16, 100);
    for (size_t i = static_cast<size_t>(g); i < slow_at_g.size(); i += 4) slow_at_g[i] = 1000;
    // Group 3's loop is the slowest (mean 340 us against 325 us): one more slow-ish iteration.
    if (g == 3) slow_at_g[0] = 340;
    ranks.push_back(Rank(2 * g, g, slow_at_g, 0.1, 1.0, 1.0 + 16 * 345e-6));
    ranks.push_back(Rank(2 * g + 1, g, std::vector<double>(16, 90), 0.1, 1.0, 1.0 + 16 * 345e-6));
  }
  PointResult out = AggregatePoint(p, ranks, AggregateOptions());
  EXPECT_EQ(out.headline_group, 3);
  EXPECT_DOUBLE_EQ(out.time_us.p50, 100);
  EXPECT_DOUBLE_EQ(out.time_us.mean, 340);
  EXPECT_NEAR(*out.loop_us_per_op, 345, 1e-6);  // the loop's wall: the ops plus what happens between them
  // With a world barrier every group's iteration k happens together: there the world-wide max is kept too.
  p.sync = Sync::kWorldBarrier;
  PointResult barrier = AggregatePoint(p, ranks, AggregateOptions());
  ASSERT_TRUE(barrier.time_us_world_max.has_value());
  EXPECT_DOUBLE_EQ(barrier.time_us_world_max->p50, 1000);
}

// Within a pair, a rank descheduled in iteration 1 delays its peer's iteration 2, which waits for its data. Both
// loops took 1300 us; a max per index ({100, 1000, 1000, 100}, mean 550) would count the one stall twice.
TEST(AggregateTest, AStallCountsOnceNotOncePerRankItDelays) {
  Point p;
  p.backend = "gloo";
  p.groups = 1;
  p.group_size = 2;
  p.bytes = 400;
  p.count = 100;
  PointResult out = AggregatePoint(
      p, {Rank(0, 0, {100, 1000, 100, 100}, 0.1, 1.0, 1.0013), Rank(1, 0, {100, 100, 1000, 100}, 0.1, 1.0, 1.0013)},
      AggregateOptions());
  EXPECT_DOUBLE_EQ(out.time_us.mean, 325);
  EXPECT_NEAR(*out.loop_us_per_op, 325, 1e-6);
  EXPECT_DOUBLE_EQ(out.per_group[0].mean_us, 550);  // per_group keeps the per-index max: ops, not the loop
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
  // Each group's slowest rank by mean: rank 0 {10, 10, 90} and rank 2 {90, 10, 10}; pooled {10, 10, 10, 10, 90,
  // 90}: median 10, six samples. (Paired across groups per index it would be {90, 12, 90}: median 90, from two
  // single slow iterations.)
  EXPECT_DOUBLE_EQ(out.time_us.p50, 10);
  EXPECT_DOUBLE_EQ(out.time_us.max, 90);
  EXPECT_EQ(out.time_us.n, 6u);
  EXPECT_EQ(out.per_group[0].p50_us, 12);
  EXPECT_EQ(out.iters, 3);
  // One group moves at a time: the aggregate is one group's bandwidth.
  EXPECT_DOUBLE_EQ(out.aggregate_busbw_gbps, out.busbw_gbps);
  EXPECT_EQ(out.headline_group, -1);
  // Group 0's loop took 1 s, group 1's 1 s: 1/3 s per iteration each.
  EXPECT_NEAR(*out.loop_us_per_op, 1e6 / 3, 1e-6);
  // At once: the one slowest rank's own series (rank 0, the first of two equally slow), not the per-index max.
  p.concurrency = Concurrency::kConcurrent;
  EXPECT_DOUBLE_EQ(AggregatePoint(p, ranks, AggregateOptions()).time_us.p50, 10);
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

// The point says the transport its ranks used when they all reported the same one (native picks shm or tcp at
// Connect), and keeps the backend's declared one otherwise: ranks that did not say, or that disagree.
TEST(AggregateTest, TransportIsTheOneTheRanksUsedWhenTheyAgree) {
  Point p;
  p.backend = "native";
  p.transport = Transport::kSharedMemory;  // declared
  p.groups = 1;
  p.group_size = 2;
  p.bytes = 400;
  p.count = 100;
  RankSamples a = Rank(0, 0, {10, 10}, 0.1, 1.0, 2.0), b = Rank(1, 0, {10, 10}, 0.1, 1.0, 2.0);
  EXPECT_EQ(AggregatePoint(p, {a, b}, AggregateOptions()).point.transport, Transport::kSharedMemory);  // unsaid
  a.transport = b.transport = Transport::kTcp;
  PointResult used = AggregatePoint(p, {a, b}, AggregateOptions());
  EXPECT_EQ(used.point.transport, Transport::kTcp);
  EXPECT_EQ(used.per_rank[1].transport, Transport::kTcp);
  EXPECT_EQ(used.id, p.Id());  // the id stays the planner's
  b.transport = Transport::kSharedMemory;
  PointResult mixed = AggregatePoint(p, {a, b}, AggregateOptions());
  EXPECT_EQ(mixed.point.transport, Transport::kSharedMemory);
  EXPECT_EQ(mixed.per_rank[0].transport, Transport::kTcp);  // each rank still says its own
  b.transport = Transport::kUnknown;
  EXPECT_EQ(AggregatePoint(p, {a, b}, AggregateOptions()).point.transport, Transport::kSharedMemory);
}

// The point's migrations are the most any rank made; a rank that could not say (-1) does not count, and a point
// where none could says -1.
TEST(AggregateTest, MigrationsAreTheMostAnyRankMade) {
  Point p;
  p.backend = "native";
  p.groups = 1;
  p.group_size = 3;
  p.bytes = 400;
  p.count = 100;
  RankSamples a = Rank(0, 0, {10, 10}, 0.1, 1.0, 2.0), b = Rank(1, 0, {10, 10}, 0.1, 1.0, 2.0),
              c = Rank(2, 0, {10, 10}, 0.1, 1.0, 2.0);
  EXPECT_EQ(AggregatePoint(p, {a, b, c}, AggregateOptions()).cpu.migrations, -1);
  a.migrations = 2;
  c.migrations = 7;
  const PointResult r = AggregatePoint(p, {a, b, c}, AggregateOptions());
  EXPECT_EQ(r.cpu.migrations, 7);
  ASSERT_EQ(r.per_rank.size(), 3u);
  EXPECT_EQ(r.per_rank[0].migrations, 2);
  EXPECT_EQ(r.per_rank[1].migrations, -1);
  EXPECT_EQ(r.per_rank[2].migrations, 7);
}

// Ranks under a cgroup CPU quota of 0.5 CPU on 2 cores: saturation and ranks per core count the quota, the
// tightest quota of the ranks' processes and the most throttled share are the point's.
TEST(AggregateTest, ACpuQuotaBelowTheCoresIsWhatSaturationCounts) {
  Point p;
  p.backend = "native";
  p.groups = 1;
  p.group_size = 2;
  p.bytes = 400;
  p.count = 100;
  std::vector<RankSamples> ranks = {Rank(0, 0, {10, 10}, 0.25, 1.0, 2.0), Rank(1, 0, {10, 10}, 0.25, 1.0, 2.0)};
  ranks[0].cpu_quota = 0.5;
  ranks[0].throttled_share = 0.9;
  ranks[1].cpu_quota = 0.8;
  ranks[1].throttled_share = 0.6;
  AggregateOptions options;
  options.cores_available = 2;
  PointResult out = AggregatePoint(p, ranks, options);
  EXPECT_DOUBLE_EQ(out.cpu.cpu_quota, 0.5);
  EXPECT_DOUBLE_EQ(out.cpu.throttled_share, 0.9);
  EXPECT_EQ(out.cpu.cores_available, 2);
  EXPECT_DOUBLE_EQ(out.cpu.saturation, 1.0);  // 0.5 CPU s over 0.5 CPU x 1 s
  EXPECT_DOUBLE_EQ(out.cpu.threads_per_core, 4.0);

  // Without a quota: the cores, and no throttling to report.
  for (RankSamples& r : ranks) {
    r.cpu_quota = 0;
    r.throttled_share = -1;
  }
  out = AggregatePoint(p, ranks, options);
  EXPECT_EQ(out.cpu.cpu_quota, 0);
  EXPECT_EQ(out.cpu.throttled_share, -1);
  EXPECT_DOUBLE_EQ(out.cpu.saturation, 0.25);
  EXPECT_DOUBLE_EQ(out.cpu.threads_per_core, 1.0);
}

// --- Transfer, arrival and busy time (issue 52) ---
// Two concurrent pairs on one host. Group 1's rank 3 arrives 2 ms late at each op and its peer waits inside it;
// group 0 is on time. The point's transfer and skew are the headline group's (group 1, whose rank 2 waited
// longest), each group's medians in per_group; busy time is the union of the ranks' intervals, bandwidth over it.
TEST(AggregateTest, TransferSkewAndBusyTimeOfALateRank) {
  Point p;
  p.backend = "gloo";
  p.groups = 2;
  p.group_size = 2;
  p.bytes = 1000000;
  p.count = 250000;
  std::vector<RankSamples> ranks = {Rank(0, 0, {10, 10}, 0.1, 1.0, 1.1), Rank(1, 0, {12, 10}, 0.1, 1.0, 1.1),
                                    Rank(2, 1, {2010, 2012}, 0.1, 1.0, 1.1), Rank(3, 1, {10, 12}, 0.1, 1.0, 1.1)};
  for (RankSamples& r : ranks) r.host = "h";
  ranks[0].entry_ns = {0, 100000};
  ranks[1].entry_ns = {1000, 100000};
  ranks[2].entry_ns = {0, 3000000};
  ranks[3].entry_ns = {2000000, 5000000};
  PointResult out = AggregatePoint(p, ranks, AggregateOptions{});
  ASSERT_EQ(out.headline_group, 1);
  ASSERT_TRUE(out.arrival.has_value());
  EXPECT_EQ(out.arrival->method, result::SkewMethod::kClock);
  EXPECT_DOUBLE_EQ(out.arrival->transfer_us.p50, 11);  // {10, 12}: rank 3's own time
  EXPECT_DOUBLE_EQ(out.arrival->skew_us.p50, 2000);    // {2000, 2000}
  ASSERT_EQ(out.per_group.size(), 2u);
  EXPECT_DOUBLE_EQ(*out.per_group[0].transfer_p50_us, 10);  // {10, 10}
  EXPECT_DOUBLE_EQ(*out.per_group[0].skew_p50_us, 0.5);     // {1, 0}
  EXPECT_DOUBLE_EQ(*out.per_group[1].skew_p50_us, 2000);
  EXPECT_EQ(*out.per_group[1].last_arrival_rank, 3);
  EXPECT_DOUBLE_EQ(*out.per_group[1].last_arrival_share, 1.0);
  // Intervals from 1 s: group 0 [0, 13) and [100, 110) us; group 1 [0, 2010), [2000, 2010), [3000, 5012) and
  // [5000, 5012): union 2010 + 2012 = 4022 us (group 0's inside group 1's). 4 ops of 1 MB (busbw = algbw for
  // pairs) over it.
  ASSERT_TRUE(out.busy_time.has_value());
  EXPECT_NEAR(out.busy_time->union_s, 4022e-6, 1e-12);
  EXPECT_NEAR(out.busy_time->aggregate_busbw_gbps, 4 * 1e6 / 4022e-6 / 1e9, 1e-9);
  EXPECT_NEAR(out.busy_time->aggregate_algbw_gbps, out.busy_time->aggregate_busbw_gbps, 1e-12);
  // The plain sum stays beside it: per-group busbw from the headline mean (2011 us) x 2 groups.
  EXPECT_NEAR(out.aggregate_busbw_gbps, 2 * 1e6 / 2011e-6 / 1e9, 1e-9);
}

// Without arrivals (or across hosts) the skew is the clock-free estimate and there is no busy time.
TEST(AggregateTest, WithoutOneClockTheSkewComesFromDurationsAndNoBusyTime) {
  Point p;
  p.backend = "gloo";
  p.groups = 1;
  p.group_size = 2;
  p.bytes = 1000;
  p.count = 250;
  std::vector<RankSamples> ranks = {Rank(0, 0, {30, 50}, 0.1, 1.0, 1.1), Rank(1, 0, {10, 20}, 0.1, 1.0, 1.1)};
  ranks[0].host = "a";
  ranks[1].host = "b";
  ranks[0].entry_ns = {0, 100};
  ranks[1].entry_ns = {0, 100};
  PointResult out = AggregatePoint(p, ranks, AggregateOptions{});
  ASSERT_TRUE(out.arrival.has_value());
  EXPECT_EQ(out.arrival->method, result::SkewMethod::kDurations);
  EXPECT_DOUBLE_EQ(out.arrival->transfer_us.p50, 15);  // {10, 20}
  EXPECT_DOUBLE_EQ(out.arrival->skew_us.p50, 25);      // {20, 30}
  EXPECT_FALSE(out.busy_time.has_value());
}

// --- communicator memory (issue 52) ---
// Each process once: two ranks of one process (--ranks-per-process 2) both see the process grow while they
// connect at once, so the process counts by its larger figure; per group is the total over the groups.
TEST(AggregateTest, CommunicatorMemoryCountsEachProcessOnceAndSplitsByGroup) {
  Point p;
  p.backend = "gloo";
  p.groups = 2;
  p.group_size = 2;
  std::vector<RankSamples> ranks = {Rank(0, 0, {10}, 0.1, 1, 2), Rank(1, 0, {10}, 0.1, 1, 2),
                                    Rank(2, 1, {10}, 0.1, 1, 2), Rank(3, 1, {10}, 0.1, 1, 2)};
  for (RankSamples& r : ranks) r.pid = 100 + r.rank / 2;  // processes 100 (ranks 0, 1) and 101 (ranks 2, 3)
  ranks[0].comm_rss_bytes = 3000;
  ranks[1].comm_rss_bytes = 4000;
  ranks[2].comm_rss_bytes = 5000;
  ranks[3].comm_rss_bytes = 5000;
  PointResult out = AggregatePoint(p, ranks, AggregateOptions{});
  ASSERT_TRUE(out.comm_memory.has_value());
  EXPECT_EQ(out.comm_memory->rss_bytes, 4000 + 5000);
  EXPECT_EQ(out.comm_memory->processes, 2);
  EXPECT_DOUBLE_EQ(out.comm_memory->RssBytesPerGroup(), 4500);
  EXPECT_EQ(out.comm_memory->device_bytes, -1);  // a CPU backend
  for (RankSamples& r : ranks) r.comm_device_bytes = 1 << 20;
  EXPECT_EQ(AggregatePoint(p, ranks, AggregateOptions{}).comm_memory->device_bytes, 4 << 20);
  for (RankSamples& r : ranks) r.comm_rss_bytes = r.comm_device_bytes = -1;  // lines written before
  EXPECT_FALSE(AggregatePoint(p, ranks, AggregateOptions{}).comm_memory.has_value());
}
// --- end communicator memory ---

}  // namespace
}  // namespace commbench
