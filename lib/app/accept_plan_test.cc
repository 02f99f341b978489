// Acceptance's planning without a process: the shared sweep, the phases a profile asks for over the hosts found,
// the plans of each phase (the real Gloo backend's description), and the follow-up after each phase over the
// synthetic cluster of lib/accept/judge/testing.h.
#include "lib/app/accept_plan.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "lib/accept/judge/testing.h"
#include "lib/app/accept_host.h"
#include "lib/app/accept_run.h"

namespace commbench::app {
namespace {

using accept::judge_testing::Address;
using accept::judge_testing::Cluster;
using accept::judge_testing::kLarge;
using accept::judge_testing::kSmall;
using accept::judge_testing::TestProfile;
using nlohmann::json;

// A profile without floors or ceilings that runs `phases`.
accept::Profile WithPhases(const std::string& phases) {
  return TestProfile(
      ("backend: gloo\nops: allreduce\nsizes: [4K]\ntime_budget_s: 60\nphases: [" + phases + "]\n").c_str());
}

// `hosts` hosts of `ranks` ranks each, as the launcher numbers them (a host's ranks together).
std::vector<std::string> RankHosts(int hosts, int ranks = 2) {
  std::vector<std::string> out;
  for (int h = 0; h < hosts; ++h) out.insert(out.end(), static_cast<size_t>(ranks), Address(h));
  return out;
}

AcceptPhases Phases(const accept::Profile& profile, int hosts, int ranks = 2) {
  const std::vector<std::string> at = RankHosts(hosts, ranks);
  return AcceptPhases::OverRanks(profile, at, std::vector<std::string>(at.size(), ""));
}

std::vector<std::string> Labels(const std::vector<PlannedPhase>& phases) {
  std::vector<std::string> out;
  for (const PlannedPhase& p : phases) out.push_back(PhaseLabel(p) + (p.why_not.empty() ? "" : ": " + p.why_not));
  return out;
}

std::vector<BackendDescription> Gloo() {
  auto described = DescribeRegisteredBackends({"gloo"});
  EXPECT_TRUE(described.ok()) << described.status().message();
  return *described;
}

TEST(AcceptPlanTest, TheSharedSweepIsTheProfilesWithABudgetPerPoint) {
  AcceptSettings settings{"eth0", 30, "3:500"};
  const SweepSpec s = AcceptBaseSpec(TestProfile(), settings, 8);
  EXPECT_EQ(s.backends, (std::vector<std::string>{"gloo"}));
  EXPECT_EQ(s.ops, (std::vector<std::string>{"allreduce"}));
  EXPECT_EQ(s.sizes, (std::vector<uint64_t>{kSmall, kLarge}));
  EXPECT_EQ(s.repeats, 1);
  EXPECT_EQ(s.iface, "eth0");
  EXPECT_DOUBLE_EQ(s.timeout_s, 30);
  EXPECT_EQ(s.test_only_slow_rank, "3:500");
  // cluster + host + 7 pairs rounds = 9 launches of 2 points: half of 100 s over 18 points, at most 0.5 s.
  EXPECT_DOUBLE_EQ(s.time_budget_s, 0.5);
  std::string text = accept::judge_testing::kProfile;
  text.replace(text.find("time_budget_s: 100"), 18, "time_budget_s: 9");
  EXPECT_DOUBLE_EQ(AcceptBaseSpec(TestProfile(text.c_str()), settings, 8).time_budget_s, 0.25);
  // One host: no pairs round; 2 launches of 2 points share 9 s, so the cap holds.
  EXPECT_DOUBLE_EQ(AcceptBaseSpec(TestProfile(text.c_str()), settings, 1).time_budget_s, 0.5);
  EXPECT_EQ(s.warmup, 2);
  EXPECT_EQ(s.min_iters, 5);
}

TEST(AcceptPlanTest, PhasesForAProfileOverEightHosts) {
  AcceptPhases phases = Phases(TestProfile(), 8);
  ASSERT_TRUE(phases.PlanAll(AcceptBaseSpec(phases.profile(), {}, 8), Gloo()).ok());
  EXPECT_EQ(Labels(phases.phases()),
            (std::vector<std::string>{"cluster", "host", "pairs round 1", "pairs round 2", "pairs round 3",
                                      "pairs round 4", "pairs round 5", "pairs round 6", "pairs round 7"}));
  EXPECT_TRUE(phases.FailedPreflight().empty());
  const std::vector<std::pair<int, int>> groups = {{1, 16}, {8, 2}, {4, 4}};  // (groups, group size)
  for (size_t i = 0; i < groups.size(); ++i) {
    const PlannedPhase& p = phases.phases()[i];
    ASSERT_FALSE(phases.plan(i).launches.empty()) << PhaseLabel(p);
    for (const Launch& l : phases.plan(i).launches) {
      EXPECT_EQ(l.order, p.layout.order);
      for (const Point& point : l.points) {
        EXPECT_EQ(point.phase, p.layout.phase);
        EXPECT_EQ(point.groups, groups[i].first) << PhaseLabel(p);
        EXPECT_EQ(point.group_size, groups[i].second) << PhaseLabel(p);
      }
    }
  }
  EXPECT_EQ(phases.phases()[2].layout.phase, "pairs-1");
}

TEST(AcceptPlanTest, APhaseThatCannotRunHereSaysWhy) {
  EXPECT_EQ(Labels(PlanPhases(TestProfile(), accept::HostsOf(RankHosts(1)))),
            (std::vector<std::string>{"cluster", "host", "pairs: one host: no pair to measure"}));
  const accept::Profile bisect = TestProfile(accept::judge_testing::kBisectProfile);
  EXPECT_EQ(Labels(PlanPhases(bisect, accept::HostsOf(RankHosts(2)))),
            (std::vector<std::string>{"cluster", "host",
                                      "bisection: 2 host(s): bisection needs at least 4 (two blocks of two)"}));
  EXPECT_EQ(Labels(PlanPhases(bisect, accept::HostsOf(RankHosts(8)))),
            (std::vector<std::string>{"cluster", "host", "bisection level 2", "bisection level 3",
                                      "bisection level 1"}));  // BisectionLevels' run order
  // Hosts with different rank counts: no host phase (the error names the host), the others still plan.
  std::vector<std::string> uneven = RankHosts(2);
  uneven.push_back(Address(1));
  const std::vector<PlannedPhase> planned = PlanPhases(TestProfile(), accept::HostsOf(uneven));
  ASSERT_EQ(planned.size(), 2u + 7u);  // 7 rounds of the one pair
  EXPECT_TRUE(planned[0].why_not.empty());
  EXPECT_NE(planned[1].why_not.find(Address(1)), std::string::npos) << planned[1].why_not;
}

TEST(AcceptPlanTest, BadInputIsAnErrorBeforeAnythingRuns) {
  // A world over the limit in one phase: the whole run is refused, naming it.
  AcceptPhases big = Phases(TestProfile(), 3, 1400);
  Status planned = big.PlanAll(AcceptBaseSpec(big.profile(), {}, 3), Gloo());
  ASSERT_FALSE(planned.ok());
  EXPECT_NE(planned.message().find("world of 4200 ranks exceeds the limit of 4096"), std::string::npos)
      << planned.message();
  // A big fleet is not a runaway world: 4096 hosts of 2 ranks each plan.
  AcceptPhases fleet = Phases(TestProfile(), 4096);
  EXPECT_TRUE(fleet.PlanAll(AcceptBaseSpec(fleet.profile(), {}, 4096), Gloo()).ok());
  // A timeout the planner refuses.
  AcceptPhases phases = Phases(TestProfile(), 2);
  AcceptSettings zero;
  zero.timeout_s = 0;
  EXPECT_FALSE(phases.PlanAll(AcceptBaseSpec(phases.profile(), zero, 2), Gloo()).ok());
  // A profile whose every phase needs more hosts than the cluster has: nothing can run, nothing is launched.
  AcceptPhases pairs_only = Phases(WithPhases("pairs"), 1);
  const SweepSpec base = AcceptBaseSpec(pairs_only.profile(), {}, 1);
  ASSERT_TRUE(pairs_only.PlanAll(base, Gloo()).ok());
  EXPECT_FALSE(pairs_only.Start().has_value());
  auto run = RunAcceptance(&pairs_only, base, AcceptRequest{});
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().message(), "no phase of test.yaml can run here");
}

TEST(AcceptPlanTest, PreflightNamesAHostWithoutTheInterface) {
  const std::vector<std::string> at = RankHosts(8);
  std::vector<std::string> problems(at.size(), "");
  problems[5] = "no interface eth0";  // rank 5: on host 2
  const std::vector<accept::Check> failed = AcceptPhases::OverRanks(TestProfile(), at, problems).FailedPreflight();
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].host, Address(2));
  EXPECT_TRUE(Phases(TestProfile(), 7).FailedPreflight().size() == 1u);  // the profile expects 8 hosts
}

// What each rank publishes with its arrival: its host's problem and fingerprint, read back per host; the drift
// check names the host whose MTU differs from the majority's (its first rank's fingerprint speaks for it).
TEST(AcceptPlanTest, HostReportsCarryFingerprintsToTheDriftCheck) {
  const std::vector<std::string> at = RankHosts(8);
  std::vector<std::string> problems(at.size());
  std::vector<Fingerprint> fingerprints(at.size());
  for (size_t r = 0; r < at.size(); ++r) {
    Fingerprint f{{"kernel", "Linux 6.1"}, {"net.eth0.mtu", r == 4 ? "9000" : "1500"}};
    const std::string text = r == 0 ? "" : json{{"problem", ""}, {"fingerprint", f}}.dump();
    ParseHostReport(text, &problems[r], &fingerprints[r]);
    EXPECT_EQ(problems[r], "");
    EXPECT_EQ(fingerprints[r].size(), r == 0 ? 0u : 2u) << "a plain string is a problem alone";
  }
  ParseHostReport("no interface eth0", &problems[0], &fingerprints[0]);
  EXPECT_EQ(problems[0], "no interface eth0");
  problems[0] = "";
  const AcceptPhases phases = AcceptPhases::OverRanks(TestProfile(), at, problems, fingerprints);
  accept::AcceptanceInput in = phases.Input(result::ResultFile{});
  std::vector<std::string> drifted;
  for (const accept::Check& c : accept::DriftChecks(in.profile, in.expected_hosts, in.found)) {
    if (!c.passed) drifted.push_back(c.host);
  }
  EXPECT_EQ(drifted, std::vector<std::string>{Address(2)});  // rank 4 is host 2's first
  EXPECT_FALSE(HostFingerprint("lo").empty());
}

// The result of the phases run so far: the synthetic cluster's points, tagged with their phase.
void AddPhase(Cluster& c, const PlannedPhase& phase, result::ResultFile* file) {
  std::vector<std::vector<int>> groups;
  if (phase.phase == accept::Phase::kCluster) {
    groups.emplace_back();
    for (int h = 0; h < c.hosts; ++h) groups.back().push_back(h);
  } else if (phase.phase == accept::Phase::kHost) {
    for (int h = 0; h < c.hosts; ++h) groups.push_back({h});
  } else {  // pairs, bisection, re-tests: each group's hosts from the layout (launcher rank r on host r / 2)
    groups.resize(static_cast<size_t>(phase.layout.groups));
    for (size_t i = 0; i < phase.layout.order.size(); ++i) {
      std::vector<int>& g = groups[i / static_cast<size_t>(phase.layout.group_size)];
      const int host = phase.layout.order[i] / 2;
      if (g.empty() || g.back() != host) g.push_back(host);
    }
  }
  for (uint64_t bytes : {kSmall, kLarge}) {
    file->points.push_back(c.Point(bytes, groups));
    file->points.back().point.phase = phase.layout.phase;
  }
}

TEST(AcceptPlanTest, AHealthyClusterStopsAfterTheClusterPhase) {
  Cluster c;
  AcceptPhases phases = Phases(TestProfile(), 8);
  ASSERT_TRUE(phases.PlanAll(AcceptBaseSpec(phases.profile(), {}, 8), Gloo()).ok());
  ASSERT_EQ(phases.Start(), std::optional<size_t>(0));
  result::ResultFile file;
  AddPhase(c, phases.phases()[0], &file);
  EXPECT_FALSE(phases.Next(file, 1).has_value());
  const accept::AcceptanceInput in = phases.Input(file);
  ASSERT_EQ(in.phases.size(), 9u);
  EXPECT_TRUE(in.phases[0].ran);
  EXPECT_EQ(in.phases[0].points.size(), 2u);
  for (size_t i = 1; i < in.phases.size(); ++i) {
    EXPECT_FALSE(in.phases[i].ran);
    EXPECT_EQ(in.phases[i].why_not, "skipped: the phases before gave a clean answer");
  }
  const accept::AcceptanceReport report = phases.Finish(&file);
  EXPECT_TRUE(report.passed);
  EXPECT_TRUE(file.trailer.acceptance.has_value());
}

TEST(AcceptPlanTest, ASlowHostNetworkRunsThePhasesThatFindIt) {
  Cluster c;
  c.host_net[3] = 0.25;
  AcceptPhases phases = Phases(TestProfile(), 8);
  ASSERT_TRUE(phases.PlanAll(AcceptBaseSpec(phases.profile(), {}, 8), Gloo()).ok());
  ASSERT_EQ(phases.Start(), std::optional<size_t>(0));
  result::ResultFile file;
  AddPhase(c, phases.phases()[0], &file);
  ASSERT_EQ(phases.Next(file, 1), std::optional<size_t>(1));  // the cluster phase failed: the host phase
  AddPhase(c, phases.phases()[1], &file);
  // Inside one host the slow network does not show: the answer is still open, so the first pairs round runs.
  ASSERT_EQ(phases.Next(file, 2), std::optional<size_t>(2));
  EXPECT_EQ(PhaseLabel(phases.phases()[2]), "pairs round 1");
  const accept::AcceptanceInput in = phases.Input(file);
  EXPECT_TRUE(in.phases[2].ran);
  EXPECT_FALSE(in.phases[3].ran);
  EXPECT_EQ(in.phases[3].why_not, "not reached");
  EXPECT_FALSE(phases.Finish(&file).passed);
}

// After the localisation, the suspects' re-tests: "confirm round N" phases, each the suspect beside a control pair,
// planned then from the suspects named; the verdict says how the suspect was confirmed.
TEST(AcceptPlanTest, TheSuspectsAreRetestedAfterTheLocalisation) {
  Cluster c;
  c.host_net[3] = 0.25;
  AcceptPhases phases = Phases(TestProfile(), 8);
  ASSERT_TRUE(phases.PlanAll(AcceptBaseSpec(phases.profile(), {}, 8), Gloo()).ok());
  result::ResultFile file;
  std::vector<std::string> ran;
  for (std::optional<size_t> next = phases.Start(); next; next = phases.Next(file, 1)) {
    ran.push_back(PhaseLabel(phases.phases()[*next]));
    AddPhase(c, phases.phases()[*next], &file);
    ASSERT_LT(ran.size(), 40u);
  }
  const accept::AcceptanceReport report = phases.Finish(&file);
  ASSERT_GE(ran.size(), 4u);
  EXPECT_EQ(ran[ran.size() - 4], "confirm round 1");
  EXPECT_EQ(ran.back(), "confirm round 4");
  ASSERT_FALSE(report.suspects.empty());
  EXPECT_EQ(report.suspects[0].host, Address(3));
  EXPECT_EQ(report.suspects[0].retest, accept::Retest::kConfirmed) << report.suspects[0].confirmation;
  EXPECT_FALSE(report.passed);
}

// A suspect that failed one of its four re-test rounds is undecided: it gets four rounds more ("confirm round 5"
// to 8), partnered and controlled by hosts no re-test named. Slow again in two of them it is intermittent; fast in
// all four it is left out with a note.
TEST(AcceptPlanTest, AnUndecidedSuspectIsRetestedOnceMore) {
  for (bool slow_again : {true, false}) {
    Cluster c;
    AcceptPhases phases = Phases(TestProfile(), 8);
    ASSERT_TRUE(phases.PlanAll(AcceptBaseSpec(phases.profile(), {}, 8), Gloo()).ok());
    result::ResultFile file;
    std::vector<std::string> ran;
    for (std::optional<size_t> next = phases.Start(); next; next = phases.Next(file, 1)) {
      const PlannedPhase& p = phases.phases()[*next];
      ran.push_back(PhaseLabel(p));
      const bool confirm = p.phase == accept::Phase::kConfirm;
      const bool slow = !confirm || p.round == 1 || (slow_again && (p.round == 5 || p.round == 7));
      c.host_net.clear();
      if (slow) c.host_net[3] = 0.25;
      if (confirm) {  // host 3 in one group of each round: its own re-test, never a partner or the control
        std::set<size_t> with_3;
        for (size_t i = 0; i < p.layout.order.size(); ++i) {
          if (p.layout.order[i] / 2 == 3) with_3.insert(i / static_cast<size_t>(p.layout.group_size));
        }
        EXPECT_EQ(with_3.size(), 1u) << ran.back();
      }
      AddPhase(c, p, &file);
      ASSERT_LT(ran.size(), 40u);
    }
    const accept::AcceptanceReport report = phases.Finish(&file);
    EXPECT_EQ(ran.back(), "confirm round 8") << slow_again;
    if (slow_again) {
      ASSERT_EQ(report.suspects.size(), 1u);
      EXPECT_EQ(report.suspects[0].host, Address(3));
      EXPECT_EQ(report.suspects[0].retest, accept::Retest::kIntermittent) << report.suspects[0].confirmation;
      EXPECT_NE(report.suspects[0].confirmation.find("failed in 3 of 8 repeats"), std::string::npos)
          << report.suspects[0].confirmation;
      EXPECT_FALSE(report.passed);
    } else {
      EXPECT_TRUE(report.suspects.empty());
      bool noted = false;
      for (const std::string& n : report.notes) noted |= n.find("failed in 1 of 8 repeats") != std::string::npos;
      EXPECT_TRUE(noted);
    }
  }
}

TEST(AcceptPlanTest, ASpentTimeBudgetStopsThePhases) {
  Cluster c;
  c.host_net[3] = 0.25;
  AcceptPhases phases = Phases(TestProfile(), 8);
  ASSERT_TRUE(phases.PlanAll(AcceptBaseSpec(phases.profile(), {}, 8), Gloo()).ok());
  ASSERT_TRUE(phases.Start().has_value());
  result::ResultFile file;
  AddPhase(c, phases.phases()[0], &file);
  EXPECT_FALSE(phases.Next(file, 101).has_value());  // the profile's budget: 100 s
  const accept::AcceptanceInput in = phases.Input(file);
  EXPECT_EQ(in.phases[1].why_not, "time budget spent (101 s of 100 s)");
  EXPECT_FALSE(phases.Finish(&file).passed);
}

// Each phase's plan is its own, also after a phase that cannot run here (a phase without a slot once gave every
// later phase the next one's plan: pairs round 1 ran round 2's points).
TEST(AcceptPlanTest, EachPhaseRunsItsOwnPlanAfterOneThatCannotRun) {
  AcceptPhases phases = Phases(WithPhases("cluster, bisection, pairs"), 2);
  ASSERT_TRUE(phases.PlanAll(AcceptBaseSpec(phases.profile(), {}, 2), Gloo()).ok());
  ASSERT_FALSE(phases.phases()[1].why_not.empty());
  for (size_t i = 0; i < phases.phases().size(); ++i) {
    if (!phases.phases()[i].why_not.empty()) continue;
    ASSERT_FALSE(phases.plan(i).launches.empty()) << PhaseLabel(phases.phases()[i]);
    for (const Launch& l : phases.plan(i).launches) {
      for (const Point& p : l.points) EXPECT_EQ(p.phase, phases.phases()[i].layout.phase);
    }
  }
}

}  // namespace
}  // namespace commbench::app
