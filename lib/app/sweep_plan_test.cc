// A sweep's policy without a rank process: the fault injections against the plan's worlds, and --explain's
// second phase planned from a first phase's findings (points planned by the real Gloo backend's description).
#include "lib/app/sweep_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "lib/diagnose/rule.h"
#include "lib/sweep/explain.h"
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

// Each rule declares the axes its A/B varies (diagnose::Rule::ab_factor); --explain finds B values by axis. A rule
// with an A/B that explain cannot vary would stay suspected for ever: every one must name an axis explain knows.
TEST(SweepPlanTest, EveryRuleWithAnAbVariesAnAxisExplainCanVary) {
  const std::vector<std::string> axes = AxesWithAb();
  int with_ab = 0;
  for (const auto& rule : diagnose::Rules()) {
    const std::vector<std::string> own = rule->ab_factor().axes;
    if (own.empty()) continue;
    ++with_ab;
    EXPECT_TRUE(std::any_of(own.begin(), own.end(), [&](const std::string& a) {
      return std::find(axes.begin(), axes.end(), a) != axes.end();
    })) << rule->name();
  }
  EXPECT_EQ(with_ab, 7);
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

// Each suspect's A/B: the series itself (A) and with the factor changed (B) at its smallest and largest group
// count, paired for kAbRounds alternating rounds; a point two A/Bs share runs once a round.
TEST(SweepPlanTest, ASuspectedCauseRunsBothSidesAlternatingOnce) {
  auto plan = PlanSweep(Spec(), Gloo());
  ASSERT_TRUE(plan.ok());
  result::ResultFile first = FirstPhase(*plan, {});
  result::Finding shared = Suspected("shared_bandwidth", first);
  first.trailer.diagnosis.findings = {shared, shared};  // the same cause twice: its points run once
  const ExplainFollowUp second = PlanExplainAbs(first, *plan, Spec(), Gloo(), "0-1");
  const FollowUp& follow = second.follow_up;
  ASSERT_EQ(follow.record.abs.size(), 2u);
  const result::ExplainAb& ab = follow.record.abs[0];
  EXPECT_EQ(ab.rule, "shared_bandwidth");
  ASSERT_EQ(ab.points.size(), 2u);                   // B at G=1 and G=4, which the sweep lacked
  EXPECT_TRUE(follow.record.abs[1].points.empty());  // added already for the first
  EXPECT_EQ(follow.rounds, kAbRounds);
  ASSERT_EQ(follow.pairs.size(), 4u);  // two group counts, for each of the two findings
  std::set<std::string> a_ids, b_ids;
  for (const AbPair& pair : follow.pairs) {
    EXPECT_TRUE(pair.groups == 1 || pair.groups == 4) << pair.groups;
    a_ids.insert(pair.a);
    b_ids.insert(pair.b);
  }
  ASSERT_EQ(second.notes.size(), 2u);
  EXPECT_EQ(second.notes[0].rfind("--explain: shared_bandwidth suspected in gloo allreduce 400 B: runs ", 0), 0u)
      << second.notes[0];
  EXPECT_NE(second.notes[0].find("alternating (3 rounds"), std::string::npos) << second.notes[0];
  std::set<std::string> planned;
  for (const Launch& l : follow.plan.launches) {
    for (const Point& p : l.points) {
      EXPECT_TRUE(planned.insert(p.Id()).second) << "planned twice: " << p.Id();
      EXPECT_EQ(p.concurrency, b_ids.count(p.Id()) ? Concurrency::kSequential : Concurrency::kConcurrent) << p.Id();
    }
  }
  EXPECT_EQ(planned.size(), a_ids.size() + b_ids.size());
  for (const std::string& id : a_ids) EXPECT_TRUE(planned.count(id)) << id;
}

// A B side the sweep measured already runs again beside its A: the sweep's order compared two moments.
TEST(SweepPlanTest, ABSideTheSweepHadRunsAgainInTheRounds) {
  SweepSpec spec = Spec();
  spec.concurrencies = {Concurrency::kConcurrent, Concurrency::kSequential};
  auto plan = PlanSweep(spec, Gloo());
  ASSERT_TRUE(plan.ok());
  result::ResultFile first = FirstPhase(*plan, {});
  result::Finding shared;
  shared.rule = "shared_bandwidth";
  shared.status = result::FindingStatus::kSuspected;
  for (const result::PointResult& p : first.points) {
    if (p.point.concurrency == Concurrency::kConcurrent) shared.points.push_back(p.id);
  }
  first.trailer.diagnosis.findings = {shared};
  const ExplainFollowUp second = PlanExplainAbs(first, *plan, spec, Gloo(), "0-1");
  ASSERT_EQ(second.follow_up.record.abs.size(), 1u);
  EXPECT_TRUE(second.follow_up.record.abs[0].points.empty());  // nothing new to write
  EXPECT_EQ(second.follow_up.pairs.size(), 2u);
  EXPECT_EQ(second.follow_up.plan.point_count(), 4u);  // A and B at G=1 and G=4
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
