// A sweep's policy without a rank process: the fault injections against the plan's worlds, and --explain's
// second phase planned from a first phase's findings (points planned by the real Gloo backend's description).
#include "lib/app/sweep_plan.h"

#include <gtest/gtest.h>

#include "lib/sweep/planner.h"

namespace commbench::app {
namespace {

std::vector<BackendDescription> Gloo() {
  auto described = DescribeRegisteredBackends({"gloo"});
  EXPECT_TRUE(described.ok()) << described.status().message();
  return *described;
}

SweepSpec Spec() {
  SweepSpec spec;
  spec.sizes = {400};
  spec.groups = {1, 2, 4};
  spec.group_sizes = {2};
  return spec;
}

// The first phase as the pipeline leaves it: every planned point measured, and the findings.
result::ResultFile FirstPhase(const Plan& plan, const std::vector<result::Finding>& findings) {
  result::ResultFile file;
  for (const Launch& l : plan.launches) {
    for (const Point& p : l.points) {
      result::PointResult r;
      r.point = p;
      r.id = p.Id();
      file.points.push_back(r);
    }
  }
  file.trailer.diagnosis.findings = findings;
  return file;
}

result::Finding Suspected(const std::string& rule, const result::ResultFile& first) {
  result::Finding f;
  f.rule = rule;
  f.status = result::FindingStatus::kSuspected;
  for (const result::PointResult& p : first.points) f.points.push_back(p.id);
  return f;
}

TEST(SweepPlanTest, AFaultAimedAtNoRankOfTheSweepIsBadInput) {
  SweepSpec spec = Spec();
  auto plan = PlanSweep(spec, Gloo());
  ASSERT_TRUE(plan.ok());
  spec.test_only_slow_rank = "7:100";  // the largest world: 4 groups of 2
  EXPECT_TRUE(CheckInjectedRanks(spec, *plan).ok());
  spec.test_only_slow_rank = "8:100";
  Status s = CheckInjectedRanks(spec, *plan);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "--test-only-slow-rank: rank 8 in '8:100' is in no world of this sweep (accepted: a rank from 0 to 7)");
  spec.test_only_slow_rank.clear();
  spec.test_only_hang_rank = "9:1";
  EXPECT_EQ(CheckInjectedRanks(spec, *plan).message().rfind("--test-only-hang-rank: rank 9 in '9:1'", 0), 0u);
  EXPECT_TRUE(CheckInjectedRanks(spec, Plan{}).ok());  // nothing planned: nothing to check
}

TEST(SweepPlanTest, NothingSuspectedRunsNoSecondPhase) {
  auto plan = PlanSweep(Spec(), Gloo());
  ASSERT_TRUE(plan.ok());
  const ExplainFollowUp second = PlanExplainAbs(FirstPhase(*plan, {}), *plan, Spec(), Gloo(), "0-1");
  EXPECT_TRUE(second.follow_up.plan.launches.empty());
  EXPECT_TRUE(second.follow_up.record.abs.empty());
  EXPECT_EQ(second.notes, (std::vector<std::string>{"--explain: nothing suspected: no A/B to run"}));
}

TEST(SweepPlanTest, ACauseWithoutAnAbStaysSuspected) {
  auto plan = PlanSweep(Spec(), Gloo());
  ASSERT_TRUE(plan.ok());
  result::ResultFile first = FirstPhase(*plan, {});
  first.trailer.diagnosis.findings = {Suspected("straggler", first)};
  const ExplainFollowUp second = PlanExplainAbs(first, *plan, Spec(), Gloo(), "0-1");
  EXPECT_TRUE(second.follow_up.plan.launches.empty());
  EXPECT_EQ(
      second.notes,
      (std::vector<std::string>{"--explain: straggler suspected: no A/B varies its factor alone; it stays suspected"}));
}

TEST(SweepPlanTest, ASuspectedCauseRunsTheSeriesWithItsFactorChangedOnce) {
  auto plan = PlanSweep(Spec(), Gloo());
  ASSERT_TRUE(plan.ok());
  result::ResultFile first = FirstPhase(*plan, {});
  result::Finding shared = Suspected("shared_bandwidth", first);
  first.trailer.diagnosis.findings = {shared, shared};  // the same cause twice: its points run once
  const ExplainFollowUp second = PlanExplainAbs(first, *plan, Spec(), Gloo(), "0-1");
  ASSERT_EQ(second.follow_up.record.abs.size(), 2u);
  const result::ExplainAb& ab = second.follow_up.record.abs[0];
  EXPECT_EQ(ab.rule, "shared_bandwidth");
  ASSERT_FALSE(ab.points.empty());
  EXPECT_TRUE(second.follow_up.record.abs[1].points.empty());  // measured already for the first
  ASSERT_EQ(second.notes.size(), 2u);
  EXPECT_EQ(second.notes[0].rfind("--explain: shared_bandwidth suspected in gloo allreduce 400 B: runs ", 0), 0u)
      << second.notes[0];
  EXPECT_NE(second.notes[0].find("(" + std::to_string(ab.points.size()) + " points)"), std::string::npos)
      << second.notes[0];
  size_t planned = 0;
  for (const Launch& l : second.follow_up.plan.launches) {
    for (const Point& p : l.points) {
      EXPECT_EQ(p.concurrency, Concurrency::kSequential) << p.Id();
      ++planned;
    }
  }
  EXPECT_EQ(planned, ab.points.size());
}

// The console's line before a sweep in a cgroup whose quota is below its cores; none without a quota or above it.
TEST(SweepPlanTest, ACpuQuotaBelowTheCoresIsSaidBeforeTheSweep) {
  EXPECT_EQ(CpuQuotaNote(CpuQuota{0.5, 0.1, "/x/cpu.stat"}, 2),
            "this process's cgroup allows 0.5 CPU of its 2 cores: the ranks share that quota, and each timed loop "
            "spans 5 to 20 of its 100 ms periods (0.5-2.0 s)");
  EXPECT_EQ(CpuQuotaNote(CpuQuota{}, 2), "");
  EXPECT_EQ(CpuQuotaNote(CpuQuota{4, 0.1, "/x/cpu.stat"}, 2), "");
}

// Under a cgroup CPU quota of a CPU or less, one core and all cores give the ranks the same share: the --cpus A/B
// would measure nothing, so it does not run, and the note says why. Above a CPU it still runs.
TEST(SweepPlanTest, NoCpusAbUnderAQuotaOfACpuOrLess) {
  auto plan = PlanSweep(Spec(), Gloo());
  ASSERT_TRUE(plan.ok());
  for (double quota : {0.5, 1.0, 1.5}) {
    result::ResultFile first = FirstPhase(*plan, {});
    for (auto& p : first.points) p.cpu.cpu_quota = quota;
    first.trailer.diagnosis.findings = {Suspected("cpu_oversubscription", first)};
    const ExplainFollowUp second = PlanExplainAbs(first, *plan, Spec(), Gloo(), "0-1");
    ASSERT_EQ(second.notes.size(), 1u);
    if (quota <= 1) {
      EXPECT_TRUE(second.follow_up.plan.launches.empty()) << quota;
      EXPECT_EQ(second.notes[0], "--explain: cpu_oversubscription suspected: the ranks' cgroup CPU quota (" +
                                     std::string(quota == 1 ? "1" : "0.5") +
                                     " CPU) caps one core and all cores alike, so no --cpus A/B varies it; it stays "
                                     "suspected");
    } else {
      EXPECT_FALSE(second.follow_up.plan.launches.empty());
      EXPECT_NE(second.notes[0].find("--cpus 0"), std::string::npos) << second.notes[0];
    }
  }
}

}  // namespace
}  // namespace commbench::app
