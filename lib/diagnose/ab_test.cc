// The cut's bootstrap interval: deterministic, containing what it measures, wider with noise, and fast.
#include "lib/diagnose/ab.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <tuple>

#include "lib/diagnose/test_util.h"

namespace commbench {
namespace diagnose {
namespace {

using testing::BuildAnalysisInput;
using testing::MakeResult;
using testing::MakeSeries;
using testing::OneToEight;
using testing::PointSpec;

// A grows by 40 us per group, B by `b_slope`; both with standard error `rel_se` of each value.
AnalysisInput Pair(double b_slope, double rel_se) {
  PointSpec a, b;
  a.rel_se = b.rel_se = rel_se;
  b.axes["pin"] = "compact";
  return BuildAnalysisInput(MakeResult({MakeSeries(a, OneToEight(), [](int g) { return 60.0 + 40 * g; }),
                                        MakeSeries(b, OneToEight(), [b_slope](int g) { return 60.0 + b_slope * g; })},
                                       "commbench sweep"));
}

TEST(BootstrapCut, DeterministicAndAroundTheCut) {
  AnalysisInput in = Pair(10, 0.01);
  result::CutInterval c = BootstrapCut(in, 0, 1);
  result::CutInterval again = BootstrapCut(in, 0, 1);
  EXPECT_EQ(c.lo, again.lo);
  EXPECT_EQ(c.hi, again.hi);
  EXPECT_LT(c.lo, 0.75);
  EXPECT_GT(c.hi, 0.75);
  EXPECT_GT(c.lo, 0.65);
  EXPECT_LT(c.hi, 0.85);
}

TEST(BootstrapCut, WiderWithNoisierPoints) {
  result::CutInterval quiet = BootstrapCut(Pair(10, 0.01), 0, 1);
  result::CutInterval noisy = BootstrapCut(Pair(10, 0.15), 0, 1);
  EXPECT_GT(noisy.hi - noisy.lo, 3 * (quiet.hi - quiet.lo));
}

TEST(BootstrapCut, NothingToResampleWithoutTwoSharedGroupCounts) {
  PointSpec a, b;
  b.axes["pin"] = "compact";
  AnalysisInput in = BuildAnalysisInput(MakeResult(
      {MakeSeries(a, {1, 2}, [](int g) { return 10.0 * g; }), MakeSeries(b, {2, 3}, [](int g) { return 10.0 * g; })},
      "commbench sweep"));
  result::CutInterval c = BootstrapCut(in, 0, 1);
  EXPECT_EQ(c.lo, 0);
  EXPECT_EQ(c.hi, 0);
}

// A thousand resamples of an 8-point pair: cheap enough to run for every pair of a large sweep.
TEST(BootstrapCut, Fast) {
  AnalysisInput in = Pair(10, 0.05);
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 20; ++i) BootstrapCut(in, 0, 1);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / 20;
  std::cout << "bootstrap: " << ms << " ms per interval (1000 resamples, 8 points)\n";
  EXPECT_LT(ms, 20) << ms << " ms per interval";
}

TEST(JudgeAbs, StatusFollowsFromEveryAb) {
  auto rec = [](result::AbOutcome o, double cut, double lo, double hi) {
    result::AbRecord r;
    r.outcome = o;
    r.cut = cut;
    r.cut_ci95 = {lo, hi};
    return r;
  };
  const auto supports = rec(result::AbOutcome::kSupports, 0.8, 0.6, 0.9);
  const auto rules_out = rec(result::AbOutcome::kRulesOut, 0.05, -0.1, 0.2);
  const auto unsure = rec(result::AbOutcome::kInconclusive, 0.45, 0.35, 0.55);
  EXPECT_EQ(JudgeAbs({}).status, result::FindingStatus::kSuspected);
  EXPECT_EQ(JudgeAbs({}).decisive, -1);
  EXPECT_EQ(JudgeAbs({unsure, supports}).status, result::FindingStatus::kConfirmed);
  EXPECT_EQ(JudgeAbs({unsure, supports}).decisive, 1);
  EXPECT_EQ(JudgeAbs({unsure, rules_out}).status, result::FindingStatus::kRuledOut);
  AbJudgement both = JudgeAbs({rules_out, supports});
  EXPECT_EQ(both.status, result::FindingStatus::kSuspected);
  EXPECT_TRUE(both.conflicting);
  EXPECT_EQ(JudgeAbs({unsure}).status, result::FindingStatus::kSuspected);
  // Support credited to another cause does not confirm this one.
  auto elsewhere = supports;
  elsewhere.supports_cause = "another cause";
  EXPECT_EQ(JudgeAbs({elsewhere}).status, result::FindingStatus::kSuspected);
}

// Rounds of an interleaved A/B at G=1 and G=8: A grows by 40 us per group, B by `b_slope`, and round r adds
// `drift[r]` us to both sides of that round (the host's moment, which the pairs share).
std::vector<result::AbRound> Rounds(double b_slope, const std::vector<double>& drift, double outside_a = -1,
                                    double outside_b = -1) {
  std::vector<result::AbRound> out;
  for (size_t r = 0; r < drift.size(); ++r) {
    for (int g : {1, 8}) {
      const double a = 60 + 40.0 * g + drift[r] * g, b = 60 + b_slope * g + drift[r] * g;
      out.push_back({static_cast<int>(r),
                     g,
                     r % 2 == 0,
                     {"a" + std::to_string(g), a, 0.01 * a, outside_a},
                     {"b" + std::to_string(g), b, 0.01 * b, outside_b}});
    }
  }
  return out;
}

TEST(CutFromRounds, ThePairsCancelWhatEachRoundsMomentAdds) {
  // Round 2 ran under load that doubled both sides' growth: measured alone, A's second look would differ from
  // its first by more than the cause. Paired, every round says B cut most of A's growth.
  auto c = CutFromRounds(Rounds(5, {0, 40, 0}), 0.05);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->rounds, 3);
  EXPECT_EQ(c->g_lo, 1);
  EXPECT_EQ(c->g_hi, 8);
  EXPECT_TRUE(c->a_grows);
  EXPECT_FALSE(c->disagree);
  ASSERT_EQ(c->round_cuts.size(), 3u);
  EXPECT_NEAR(c->round_cuts[0], 1 - 5.0 / 40, 1e-9);
  EXPECT_NEAR(c->round_cuts[1], 1 - 45.0 / 80, 1e-9);
  EXPECT_GT(c->cut, kConfirmCut);
  EXPECT_LE(c->cut_ci95.lo, c->cut);
  EXPECT_GE(c->cut_ci95.hi, c->cut);
}

TEST(CutFromRounds, RoundsThatDisagreeAreSaidSo) {
  // Round 1's B side grew as much as A: one round confirms, another rules out.
  auto rounds = Rounds(5, {0, 0, 0});
  for (result::AbRound& r : rounds) {
    if (r.round == 1) r.b.mean_us = r.a.mean_us;
  }
  auto c = CutFromRounds(rounds, 0.05);
  ASSERT_TRUE(c.has_value());
  EXPECT_TRUE(c->disagree);
}

TEST(CutFromRounds, OutsideLoadOnOneSideOnlyIsSeen) {
  EXPECT_TRUE(CutFromRounds(Rounds(5, {0, 0, 0}, 0.9, 0.05), 0.05)->LoadDiffers());
  EXPECT_FALSE(CutFromRounds(Rounds(5, {0, 0, 0}, 0.5, 0.45), 0.05)->LoadDiffers());
  EXPECT_FALSE(CutFromRounds(Rounds(5, {0, 0, 0}), 0.05)->LoadDiffers());  // not measured
}

TEST(CutFromRounds, OutsideLoadCountsAgainstAVerdictOnlyWhereItCouldMakeIt) {
  const auto a_busier = CutFromRounds(Rounds(5, {0, 0, 0}, 0.9, 0.05), 0.05);
  EXPECT_TRUE(a_busier->LoadCouldMakeACut());
  EXPECT_FALSE(a_busier->LoadCouldHideACut());
  const auto b_busier = CutFromRounds(Rounds(5, {0, 0, 0}, 0.05, 0.9), 0.05);
  EXPECT_FALSE(b_busier->LoadCouldMakeACut());
  EXPECT_TRUE(b_busier->LoadCouldHideACut());
  // The same mean on both sides, but B's load only at G=1: it slowed B's start and shrank B's growth, a cut the
  // load could make.
  auto b_at_start = Rounds(5, {0, 0, 0}, 0.45, 0.0);
  for (result::AbRound& r : b_at_start) r.b.outside_cpus = r.groups == 1 ? 0.9 : 0.0;
  const auto gradient = CutFromRounds(b_at_start, 0.05);
  EXPECT_NEAR(gradient->b_load_growth, -0.9, 1e-12);
  EXPECT_TRUE(gradient->LoadCouldMakeACut());
}

TEST(CutFromRounds, NeedsTwoRoundsAndTwoGroupCounts) {
  EXPECT_FALSE(CutFromRounds(Rounds(5, {0}), 0.05).has_value());
  auto rounds = Rounds(5, {0, 0, 0});
  rounds.erase(std::remove_if(rounds.begin(), rounds.end(), [](const result::AbRound& r) { return r.groups == 8; }),
               rounds.end());
  EXPECT_FALSE(CutFromRounds(rounds, 0.05).has_value());
}

TEST(CutFromRounds, FlatAIsNoTest) {
  std::vector<result::AbRound> flat = Rounds(0, {0, 0, 0});
  for (result::AbRound& r : flat) r.a.mean_us = 100 + 0.001 * r.groups;
  EXPECT_FALSE(CutFromRounds(flat, 0.05)->a_grows);
  EXPECT_TRUE(CutFromRounds(Rounds(0, {0, 0, 0}), 0.05)->a_grows);
}

// A swept pair without rounds: its figures are shown, its outcome is inconclusive, and the note says why.
TEST(EvaluateAbs, ASweptPairWithoutRoundsNeitherConfirmsNorRulesOut) {
  PointSpec a, b;
  b.axes["pin"] = "compact";
  const auto result = MakeResult({MakeSeries(a, OneToEight(), [](int g) { return 60.0 + 40 * g; }),
                                  MakeSeries(b, OneToEight(), [](int g) { return 60.0 + 2.0 * g; })},
                                 "commbench sweep --pin none,compact");
  AnalysisInput sweep_order = testing::InputOf(testing::ReadSynthetic(result));
  AbFactor pin{
      "pinning", {"pin"}, [](const AnalysisInput&, const SeriesData& x, const SeriesData& y, const std::string&) {
        return x.axes.at("pin") == "none" && y.axes.at("pin") != "none";
      }};
  auto abs = EvaluateAbs(sweep_order, 0, pin, "wakeup_latency");
  ASSERT_EQ(abs.size(), 1u);
  EXPECT_EQ(abs[0].outcome, result::AbOutcome::kInconclusive);
  EXPECT_EQ(abs[0].pairs, 0);
  EXPECT_GT(abs[0].cut, 0.9);
  EXPECT_NE(abs[0].note.find("not alternated"), std::string::npos) << abs[0].note;
  // The same pair measured interleaved supports.
  AnalysisInput interleaved = sweep_order;
  testing::InterleaveSweepPairs(&interleaved);
  abs = EvaluateAbs(interleaved, 0, pin, "wakeup_latency");
  ASSERT_EQ(abs.size(), 1u);
  EXPECT_EQ(abs[0].outcome, result::AbOutcome::kSupports);
  EXPECT_EQ(abs[0].pairs, testing::kSyntheticRounds);
  // Outside load on one side: on A (the side with the cause) it could be A's growth, so the cut stays suspected;
  // on B it could only have grown B, and B still grew less: the cut stands, and the note says so.
  for (const auto& [a_load, b_load, outcome, said] :
       std::vector<std::tuple<double, double, result::AbOutcome, std::string>>{
           {0.9, 0.05, result::AbOutcome::kInconclusive, "A's extra load may be its growth"},
           {0.05, 0.9, result::AbOutcome::kSupports, "B grew less despite its extra load"}}) {
    AnalysisInput loaded = interleaved;
    for (result::AbRound& r : loaded.interleaved[0].rounds) r.a.outside_cpus = a_load, r.b.outside_cpus = b_load;
    abs = EvaluateAbs(loaded, 0, pin, "wakeup_latency");
    ASSERT_EQ(abs.size(), 1u);
    EXPECT_EQ(abs[0].outcome, outcome) << abs[0].note;
    EXPECT_NE(abs[0].note.find(said), std::string::npos) << abs[0].note;
  }
}

}  // namespace
}  // namespace diagnose
}  // namespace commbench
