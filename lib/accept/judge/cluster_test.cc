// The cluster phase (judge/cluster.cc): correctness, busbw floors and ceilings of the whole cluster.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "lib/accept/judge/testing.h"

namespace commbench::accept {
namespace {

using namespace judge_testing;  // NOLINT: the synthetic cluster and report lookups

TEST(ClusterJudgeTest, WrongResultFailsAndRepeatsForgiveOnlySpeed) {
  Cluster c;
  AcceptanceInput in = c.Input();
  // A second cluster repeat at 4M, slow: the best repeat passes the floor.
  result::PointResult slow = in.phases[0].points[1];
  slow.busbw_gbps *= 0.2;
  slow.time_us.p50 *= 5;
  in.phases[0].points.push_back(slow);
  AcceptanceReport r = Judge(in);
  EXPECT_TRUE(r.passed) << Failed(r);
  EXPECT_NE(Find(r, "cluster allreduce 4M busbw floor")->reason.find("best in 2 repeats"), std::string::npos);
  // A wrong result in one repeat fails whatever the others did.
  in.phases[0].points.back().correct = false;
  in.phases[0].points.back().errors = {"rank 3: element 17 is 2, expected 16"};
  AcceptanceReport wrong = Judge(in);
  EXPECT_FALSE(wrong.passed);
  const Check* correct = Find(wrong, "cluster allreduce 4M correct");
  ASSERT_NE(correct, nullptr);
  EXPECT_NE(correct->reason.find("rank 3: element 17"), std::string::npos) << correct->reason;
}

TEST(ClusterJudgeTest, HealthyClusterPassesItsFloorAndCeilings) {
  Cluster c;
  AcceptanceReport r = Judge(c.Input());
  for (const char* name :
       {"cluster allreduce 4K correct", "cluster allreduce 4K latency p50", "cluster allreduce 4K p99/p50",
        "cluster allreduce 4M correct", "cluster allreduce 4M busbw floor", "cluster allreduce 4M p99/p50"}) {
    const Check* k = Find(r, name);
    ASSERT_NE(k, nullptr) << name;
    EXPECT_TRUE(k->passed) << name << ": " << k->reason;
  }
  EXPECT_EQ(Find(r, "cluster allreduce 4M latency p50"), nullptr);  // the profile's p50 ceiling is at 4K only
}

TEST(ClusterJudgeTest, FloorFiresWhenTheWholeNetworkIsSlow) {
  Cluster c;
  for (int h = 0; h < c.hosts; ++h) c.host_net[h] = 0.25;
  AcceptanceReport r = Judge(c.Input());
  EXPECT_FALSE(r.passed);
  const Check* floor = Find(r, "cluster allreduce 4M busbw floor");
  ASSERT_NE(floor, nullptr);
  EXPECT_FALSE(floor->passed);
  EXPECT_NEAR(floor->measured, 0.25, 0.03);
  EXPECT_EQ(floor->reason.find("busbw 0.2"), 0u) << floor->reason;
  EXPECT_NE(floor->reason.find(" < floor 0.5 GB/s (declared), best in 1 repeat"), std::string::npos) << floor->reason;
}

TEST(ClusterJudgeTest, CeilingsFire) {
  Cluster c;
  AcceptanceInput in = c.Input();
  in.profile.ceilings[0].p50_us = 10;         // 4K: about 40 us measured
  in.profile.ceilings[1].p99_over_p50 = 1.2;  // every size: 1.4 measured
  AcceptanceReport r = Judge(in);
  const Check* p50 = Find(r, "cluster allreduce 4K latency p50");
  ASSERT_NE(p50, nullptr);
  EXPECT_FALSE(p50->passed);
  EXPECT_NE(p50->reason.find(" us > ceiling 10 us, best in 1 repeat"), std::string::npos) << p50->reason;
  const Check* tail = Find(r, "cluster allreduce 4M p99/p50");
  ASSERT_NE(tail, nullptr);
  EXPECT_FALSE(tail->passed);
  EXPECT_EQ(tail->reason, "p99/p50 1.4 > ceiling 1.2, best in 1 repeat");
}

// The same failed ceilings while a process outside the run held a CPU: each failed check names it, and with nothing
// else failed and no suspect the run could not judge the cluster (exit 3), where a quiet one fails (exit 1).
TEST(ClusterJudgeTest, CeilingsFailedOnABusyHostCouldNotJudge) {
  Cluster c;
  AcceptanceInput in = c.Input();
  in.profile.phases = {Phase::kCluster};
  in.profile.ceilings[1].p99_over_p50 = 1.2;  // every size: 1.4 measured
  EXPECT_EQ(Judge(in).ExitCode(), 1);
  for (PhaseResult& pr : in.phases) {
    for (result::PointResult& pt : pr.points) {
      result::HostLoad load;
      load.window_s = 2;
      load.outside_cpu_s = 1.9;
      load.top.push_back({4242, "yes", 1.9, {1}});
      pt.host_load = load;
    }
  }
  AcceptanceReport r = Judge(in);
  EXPECT_TRUE(r.Busy()) << Failed(r);
  EXPECT_EQ(r.ExitCode(), 3);
  const Check* tail = Find(r, "cluster allreduce 4M p99/p50");
  ASSERT_NE(tail, nullptr);
  EXPECT_FALSE(tail->passed);
  EXPECT_EQ(tail->disturbed_by, "processes outside the run held 0.95 of a CPU (the largest: yes, pid 4242)");
  EXPECT_NE(tail->reason.find("the host was busy"), std::string::npos) << tail->reason;
  // A little outside work (0.1 of a CPU) is not a busy host.
  for (PhaseResult& pr : in.phases) {
    for (result::PointResult& pt : pr.points) pt.host_load->outside_cpu_s = 0.2;
  }
  EXPECT_EQ(Judge(in).ExitCode(), 1);
  // A failure that is not a timing check (a wrong result) is the cluster's however busy the host.
  for (PhaseResult& pr : in.phases) {
    for (result::PointResult& pt : pr.points) pt.host_load->outside_cpu_s = 1.9;
  }
  in.phases[0].points[0].correct = false;
  EXPECT_EQ(Judge(in).ExitCode(), 1);
}

TEST(ClusterJudgeTest, SizeWithoutPointFailsClosed) {
  Cluster c;
  AcceptanceInput in = c.Input();
  in.phases[0].points.erase(in.phases[0].points.begin());  // the 4K point
  AcceptanceReport r = Judge(in);
  EXPECT_FALSE(r.passed);
  const Check* missing = Find(r, "cluster allreduce 4K");
  ASSERT_NE(missing, nullptr);
  EXPECT_FALSE(missing->passed);
  EXPECT_EQ(missing->reason, "cluster allreduce 4K: no point was measured (fails closed)");
  EXPECT_EQ(Find(r, "cluster allreduce 4K correct"), nullptr);
  EXPECT_EQ(Find(r, "cluster allreduce 4K latency p50"), nullptr);
  EXPECT_TRUE(Find(r, "cluster allreduce 4M busbw floor")->passed);
}

}  // namespace
}  // namespace commbench::accept
