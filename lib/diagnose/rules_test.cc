// Each rule: fires on its planted signature, stays quiet on a control, and is confirmed only with its A/B.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "lib/diagnose/ab.h"
#include "lib/diagnose/diagnose.h"
#include "lib/diagnose/rule.h"
#include "lib/diagnose/rules/common.h"
#include "lib/diagnose/test_util.h"

namespace commbench {
namespace diagnose {
namespace {

using nlohmann::json;
using testing::BuildAnalysisInput;
using testing::Diagnose;
using testing::MakeResult;
using testing::MakeSeries;
using testing::OneToEight;
using testing::PointSpec;

std::optional<Finding> Eval(const std::string& rule, const json& result) {
  const Rule* r = FindRule(rule);
  EXPECT_NE(r, nullptr) << rule;
  if (r == nullptr) return std::nullopt;
  return r->Evaluate(BuildAnalysisInput(result));
}

// What must hold for every diagnosis: ranked by score; confirmed only with A/B points; suspected with a command,
// or with a summary that says why no A/B can confirm it.
void CheckInvariants(const json& d) {
  const json& fs = d["findings"];
  for (size_t i = 0; i < fs.size(); ++i) {
    if (i > 0) {
      EXPECT_GE(fs[i - 1]["score"].get<double>(), fs[i]["score"].get<double>());
    }
    if (fs[i]["status"] == "confirmed") {
      EXPECT_FALSE(fs[i]["ab_points"].empty()) << fs[i].dump();
    } else {
      EXPECT_EQ(fs[i]["status"], "suspected");
      const std::string command = fs[i]["confirm_command"].get<std::string>();
      if (command.empty()) {
        EXPECT_NE(fs[i]["summary"].get<std::string>().find("A/B can confirm it"), std::string::npos) << fs[i].dump();
      } else {
        EXPECT_EQ(command.rfind("commbench sweep", 0), 0u) << fs[i].dump();
      }
    }
    EXPECT_FALSE(fs[i]["evidence"].empty());
    EXPECT_FALSE(fs[i]["fix"].get<std::string>().empty());
  }
}

int CountConfirmed(const json& d) {
  int n = 0;
  for (const json& f : d["findings"]) n += f["status"] == "confirmed";
  return n;
}

// ---------- CPU oversubscription ----------

PointSpec Oversubscribed(const std::string& cpus, double cores) {
  PointSpec s;
  s.axes["cpus"] = cpus;
  s.cores = cores;
  s.saturation = 0.97;
  return s;
}

std::vector<json> OversubscribedSeries(const std::string& cpus, double cores, double slope) {
  return MakeSeries(
      Oversubscribed(cpus, cores), OneToEight(), [slope](int g) { return 60 + slope * (g - 1); },
      [](int g, PointSpec* s) { s->invol_ctx_per_iter = 0.2 * g * g; });
}

TEST(CpuOversubscriptionRule, ConfirmedByMoreCores) {
  json r = MakeResult({OversubscribedSeries("0", 1, 40), OversubscribedSeries("0-1", 2, 15)},
                      "commbench sweep --groups 1..8 --cpus 0;0-1");
  std::optional<Finding> f = Eval("cpu_oversubscription", r);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, FindingStatus::kConfirmed);
  EXPECT_NEAR(f->cut, 1 - 15.0 / 40, 0.02);
  EXPECT_FALSE(f->ab_points.empty());
  EXPECT_NE(f->summary.find("cut by 62%"), std::string::npos) << f->summary;
  json d = Diagnose(r);
  CheckInvariants(d);
  EXPECT_EQ(d["findings"][0]["rule"], "cpu_oversubscription");
}

TEST(CpuOversubscriptionRule, SuspectedWithoutAbAndSaysHowToConfirm) {
  json r = MakeResult({OversubscribedSeries("", 2, 40)}, "commbench sweep --groups 1..8");
  std::optional<Finding> f = Eval("cpu_oversubscription", r);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, FindingStatus::kSuspected);
  EXPECT_TRUE(f->ab_points.empty());
  EXPECT_EQ(f->confirm_command, "commbench sweep --groups 1..8 --cpus '0;0-1'");
  // From G=2 the 4 ranks outnumber the 2 cores.
  bool found = false;
  for (const Evidence& e : f->evidence) {
    if (e.label == "ranks outnumber cores from") {
      found = true;
      EXPECT_EQ(e.value, 2);
    }
  }
  EXPECT_TRUE(found);
}

// ---------- CPU oversubscription under a cgroup CPU quota ----------

std::vector<json> QuotaSeries(const std::string& cpus, double cores, double quota, double slope) {
  PointSpec base = Oversubscribed(cpus, cores);
  base.cpu_quota = quota;
  return MakeSeries(
      base, OneToEight(), [slope](int g) { return 60 + slope * (g - 1); },
      [](int g, PointSpec* s) { s->throttled_share = g == 1 ? 0.4 : 0.95; });
}

double EvidenceValue(const Finding& f, const std::string& label) {
  for (const Evidence& e : f.evidence) {
    if (e.label == label) return e.value;
  }
  return -1;
}

// A container limited to half a CPU on 2 cores: the 2 ranks at G=1 already share the quota, not the cores. The
// finding says so, with the throttling, and offers no --cpus A/B: one core and both get the same half CPU.
TEST(CpuOversubscriptionRule, AQuotaBelowTheCoresIsWhatTheRanksShare) {
  json r = MakeResult({QuotaSeries("", 2, 0.5, 40)}, "commbench sweep --groups 1..8");
  std::optional<Finding> f = Eval("cpu_oversubscription", r);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, FindingStatus::kSuspected);
  EXPECT_NE(f->summary.find("the ranks outnumber the 0.5 CPU their cgroup's CPU quota allows"), std::string::npos)
      << f->summary;
  EXPECT_NE(f->summary.find("ran out of quota in 95% of its periods"), std::string::npos) << f->summary;
  EXPECT_NE(f->summary.find("No --cpus A/B can confirm it"), std::string::npos) << f->summary;
  EXPECT_EQ(f->confirm_command, "");
  EXPECT_NE(f->fix.find("CPU limit"), std::string::npos) << f->fix;
  EXPECT_EQ(EvidenceValue(*f, "cores the ranks may use"), 0.5);
  EXPECT_EQ(EvidenceValue(*f, "CPU quota of the ranks' cgroup"), 0.5);
  EXPECT_EQ(EvidenceValue(*f, "share of quota periods throttled at G=8"), 95);
  EXPECT_EQ(EvidenceValue(*f, "ranks outnumber cores from"), 1);
  EXPECT_EQ(EvidenceValue(*f, "ranks per core at G=8"), 32);
  CheckInvariants(Diagnose(r));
}

// The same quota on both sides of a --cpus pair: one core and two cores give the ranks the same half CPU, so the
// pair does not vary the factor and confirms (or rules out) nothing, whatever it measured.
TEST(CpuOversubscriptionRule, CpusUnderAQuotaOfACpuProveNothing) {
  json r = MakeResult({QuotaSeries("0", 1, 0.5, 40), QuotaSeries("0-1", 2, 0.5, 15)},
                      "commbench sweep --groups 1..8 --cpus '0;0-1'");
  std::optional<Finding> f = Eval("cpu_oversubscription", r);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, FindingStatus::kSuspected);
  EXPECT_TRUE(f->ab.empty());
  json d = Diagnose(r);
  CheckInvariants(d);
  EXPECT_EQ(CountConfirmed(d), 0) << d.dump(1);
}

// A quota of 1.5 CPUs on 2 cores: one core against all gives the ranks 1 CPU against 1.5, a real change of the
// factor, so the --cpus pair still confirms.
TEST(CpuOversubscriptionRule, CpusStillConfirmUnderAQuotaAboveACpu) {
  json r = MakeResult({QuotaSeries("0", 1, 1.5, 40), QuotaSeries("0-1", 2, 1.5, 4)},
                      "commbench sweep --groups 1..8 --cpus '0;0-1'");
  std::optional<Finding> f = Eval("cpu_oversubscription", r);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, FindingStatus::kConfirmed) << f->summary;
}

// Fewer ranks per process under the same quota of half a CPU: every rank still gets its share of that half, so
// the pair does not vary the factor. Without the quota the same pair confirms.
TEST(CpuOversubscriptionRule, RanksPerProcessUnderOneQuotaProveNothing) {
  auto series = [](int rpp, double quota, double slope) {
    PointSpec base = Oversubscribed("", 2);
    base.axes["ranks_per_process"] = rpp;
    base.cpu_quota = quota;
    return MakeSeries(
        base, OneToEight(), [slope](int g) { return 60 + slope * (g - 1); },
        [](int g, PointSpec* s) { s->invol_ctx_per_iter = 0.2 * g * g; });
  };
  const std::string command = "commbench sweep --groups 1..8 --ranks-per-process 1,2";
  std::optional<Finding> quota =
      Eval("cpu_oversubscription", MakeResult({series(2, 0.5, 40), series(1, 0.5, 4)}, command));
  ASSERT_TRUE(quota);
  EXPECT_EQ(quota->status, FindingStatus::kSuspected);
  EXPECT_TRUE(quota->ab.empty());
  std::optional<Finding> none = Eval("cpu_oversubscription", MakeResult({series(2, 0, 40), series(1, 0, 4)}, command));
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, FindingStatus::kConfirmed) << none->summary;
}

// A quota above the cores binds nothing: the finding reads as without one.
TEST(CpuOversubscriptionRule, AQuotaAboveTheCoresChangesNothing) {
  json r = MakeResult({QuotaSeries("", 2, 4, 40)}, "commbench sweep --groups 1..8");
  std::optional<Finding> f = Eval("cpu_oversubscription", r);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->confirm_command, "commbench sweep --groups 1..8 --cpus '0;0-1'");
  EXPECT_NE(f->summary.find("the 2 cores they may use"), std::string::npos) << f->summary;
  EXPECT_EQ(EvidenceValue(*f, "CPU quota of the ranks' cgroup"), -1);
}

TEST(CpuOversubscriptionRule, RuledOutWhenMoreCoresDoNotHelp) {
  json r = MakeResult({OversubscribedSeries("0", 1, 40), OversubscribedSeries("0-1", 2, 39)}, "commbench sweep");
  std::optional<Finding> f = Eval("cpu_oversubscription", r);
  ASSERT_TRUE(f);
  // The one pair, more cores against fewer, did not cut the growth: both series are judged on it, so the cause is
  // ruled out on either and listed in ruled_out[] with that A/B.
  EXPECT_EQ(f->status, FindingStatus::kRuledOut);
  json d = Diagnose(r);
  EXPECT_EQ(CountConfirmed(d), 0);
  ASSERT_EQ(d["ruled_out"].size(), 1u) << d.dump(1);
  EXPECT_EQ(d["ruled_out"][0]["ab"][0]["outcome"], "rules out");
}

// The case: `sweep --groups 1..6 --sizes 64K --pin none,compact` at 6 ranks per core on both sides.
// Pinning leaves ranks per core unchanged, so however much it cut, it does not confirm oversubscription.
TEST(CpuOversubscriptionRule, PinningAloneDoesNotConfirmIt) {
  PointSpec none = Oversubscribed("", 2);
  none.bytes = 65536;
  none.group_size = 2;
  PointSpec compact = none;
  compact.axes["pin"] = "compact";
  const std::vector<int> g = {1, 2, 3, 4, 5, 6};
  json r = MakeResult({MakeSeries(none, g, [](int n) { return 60.0 + 40 * (n - 1); }),
                       MakeSeries(compact, g, [](int n) { return 60.0 + 5 * (n - 1); })},
                      "commbench sweep --groups 1..6 --sizes 64K --pin none,compact");
  std::optional<Finding> f = Eval("cpu_oversubscription", r);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, FindingStatus::kSuspected);
  EXPECT_TRUE(f->ab.empty());
  EXPECT_TRUE(f->ab_points.empty());
  EXPECT_NE(f->confirm_command.find("--cpus"), std::string::npos) << f->confirm_command;
  json d = Diagnose(r);
  CheckInvariants(d);
  for (const json& x : d["findings"]) {
    if (x["rule"] == "cpu_oversubscription") {
      EXPECT_EQ(x["status"], "suspected") << x.dump(1);
    }
  }
}

// More cores per rank at the same group count is the factor; the record says so with its interval.
TEST(CpuOversubscriptionRule, TheCpusAbIsRecordedWithItsInterval) {
  json r = MakeResult({OversubscribedSeries("0", 1, 40), OversubscribedSeries("0-1", 2, 4)},
                      "commbench sweep --groups 1..8 --cpus '0;0-1'");
  std::optional<Finding> f = Eval("cpu_oversubscription", r);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, FindingStatus::kConfirmed);
  ASSERT_EQ(f->ab.size(), 1u);
  EXPECT_EQ(f->ab[0].factor, "cpus");
  EXPECT_EQ(f->ab[0].partner, "--cpus 0-1");
  EXPECT_EQ(f->ab[0].outcome, result::AbOutcome::kSupports);
  ASSERT_TRUE(f->cut_ci95);
  EXPECT_GE(f->cut, 0.5);
  EXPECT_GE(f->cut_ci95->lo, 0.3);
  EXPECT_LE(f->cut_ci95->lo, f->cut);
  EXPECT_GE(f->cut_ci95->hi, f->cut);
  json d = Diagnose(r);
  ASSERT_TRUE(d["findings"][0].contains("cut_ci95")) << d["findings"][0].dump(1);
  EXPECT_EQ(d["findings"][0]["ab"][0]["outcome"], "supports");
}

// A cut of 0.45, measured tightly: too small to confirm, too large to rule out.
TEST(CpuOversubscriptionRule, ACutOfFortyFivePercentIsInconclusive) {
  json r = MakeResult({OversubscribedSeries("0", 1, 40), OversubscribedSeries("0-1", 2, 22)}, "commbench sweep");
  std::optional<Finding> f = Eval("cpu_oversubscription", r);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, FindingStatus::kSuspected);
  EXPECT_NEAR(f->cut, 0.45, 0.03);
  ASSERT_EQ(f->ab.size(), 1u);
  EXPECT_EQ(f->ab[0].outcome, result::AbOutcome::kInconclusive);
  EXPECT_NE(f->summary.find("A/B inconclusive"), std::string::npos) << f->summary;
  EXPECT_NE(f->summary.find("cut 45%"), std::string::npos) << f->summary;
  EXPECT_NE(f->summary.find("95% interval"), std::string::npos) << f->summary;
  EXPECT_FALSE(f->confirm_command.empty());
}

// A large cut from noisy points: its interval reaches below 0.3, so it is not confirmed. Measured interleaved, a
// large pooled cut whose rounds disagree (one removes nearly all of A's growth, another little of it) is not
// confirmed either, and the finding says why.
TEST(CpuOversubscriptionRule, ALargeCutWithAWideIntervalIsNotConfirmed) {
  const std::vector<int> g = {1, 2, 3, 4};
  const double wobble[] = {0, 0.5, -0.5, 0.5, -0.5};  // per G, in units of the point's standard error
  const double rel_se = 0.28;
  auto series = [&](const std::string& cpus, double cores, double slope) {
    PointSpec s = Oversubscribed(cpus, cores);
    s.rel_se = rel_se;
    return MakeSeries(s, g, [&](int n) { return (60 + slope * (n - 1)) * (1 + rel_se * wobble[n]); });
  };
  json r = MakeResult({series("0", 1, 80), series("0-1", 2, 16)}, "commbench sweep");
  // In the sweep's order: a wide interval, and no verdict from it.
  AnalysisInput sweep_order = testing::InputOf(testing::ReadSynthetic(r));
  std::optional<Finding> f = FindRule("cpu_oversubscription")->Evaluate(sweep_order);
  ASSERT_TRUE(f);
  ASSERT_EQ(f->ab.size(), 1u) << f->summary;
  EXPECT_GE(f->cut, 0.5) << f->summary;
  EXPECT_LT(f->ab[0].cut_ci95.lo, 0.3) << f->summary;
  EXPECT_NE(f->status, FindingStatus::kConfirmed) << f->summary;
  EXPECT_NE(f->summary.find("A/B inconclusive"), std::string::npos) << f->summary;
  // Interleaved, with rounds that cut 96 %, 88 % and 21 % of A's 240 us growth.
  AnalysisInput rounds = sweep_order;
  const int one_core = sweep_order.series[0].axes.at("cpus") == "0" ? 0 : 1;
  InterleavedAb ab{one_core, 1 - one_core, {}};
  const double b_at_4[] = {70, 90, 250};
  for (int round = 0; round < 3; ++round) {
    for (int groups : {1, 4}) {
      const double a = groups == 1 ? 60 : 300, b = groups == 1 ? 60 : b_at_4[round];
      ab.rounds.push_back({round, groups, round % 2 == 0, {"a", a, 1, -1}, {"b", b, 1, -1}});
    }
  }
  rounds.interleaved = {ab};
  f = FindRule("cpu_oversubscription")->Evaluate(rounds);
  ASSERT_TRUE(f);
  ASSERT_EQ(f->ab.size(), 1u) << f->summary;
  EXPECT_EQ(f->ab[0].pairs, 3);
  EXPECT_GE(f->ab[0].cut, 0.5) << f->summary;
  EXPECT_NE(f->status, FindingStatus::kConfirmed) << f->summary;
  EXPECT_NE(f->summary.find("A/B inconclusive"), std::string::npos) << f->summary;
  EXPECT_NE(f->summary.find("3 interleaved rounds disagree (cuts 96%, 88%, 21%)"), std::string::npos) << f->summary;
}

// Every A/B is reported: more cores supports it, fewer ranks per process rules it out; the A/Bs disagree.
TEST(CpuOversubscriptionRule, EveryAbIsReportedAndConflictingOnesKeepItSuspected) {
  auto with_rpp = [](std::vector<json> pts, int rpp) {
    for (json& p : pts) p["ranks_per_process"] = rpp;
    return pts;
  };
  json r = MakeResult({with_rpp(OversubscribedSeries("0", 1, 40), 2), with_rpp(OversubscribedSeries("0-1", 2, 3), 2),
                       with_rpp(OversubscribedSeries("0", 1, 40), 1)},
                      "commbench sweep");
  AnalysisInput in = BuildAnalysisInput(r);
  ASSERT_EQ(in.series.size(), 3u);
  const Rule* rule = FindRule("cpu_oversubscription");
  std::vector<result::AbRecord> abs = EvaluateAbs(in, 0, rule->ab_factor(), rule->name());
  ASSERT_EQ(abs.size(), 2u);
  EXPECT_EQ(abs[0].partner, "--cpus 0-1");
  EXPECT_EQ(abs[0].outcome, result::AbOutcome::kSupports);
  EXPECT_EQ(abs[1].partner, "--ranks-per-process 1");
  EXPECT_EQ(abs[1].outcome, result::AbOutcome::kRulesOut);
  AbJudgement j = JudgeAbs(abs);
  EXPECT_EQ(j.status, FindingStatus::kSuspected);
  EXPECT_TRUE(j.conflicting);
  // Through the rule: the finding carries both, and says they disagree.
  std::optional<Finding> f = rule->Evaluate(in);
  ASSERT_TRUE(f);
  EXPECT_NE(f->status, FindingStatus::kConfirmed);
}

TEST(CpuOversubscriptionRule, QuietWhenFlatOrUndersubscribed) {
  // Oversubscribed but flat: no growth, no finding.
  json flat =
      MakeResult({MakeSeries(Oversubscribed("", 2), OneToEight(), [](int) { return 60.0; })}, "commbench sweep");
  EXPECT_FALSE(Eval("cpu_oversubscription", flat));
  // Growing, but with a core per rank and an idle CPU: not this cause.
  PointSpec roomy;
  roomy.cores = 64;
  roomy.saturation = 0.2;
  json grows = MakeResult({MakeSeries(roomy, OneToEight(), [](int g) { return 60.0 + 30 * g; })}, "commbench sweep");
  EXPECT_FALSE(Eval("cpu_oversubscription", grows));
}

// ---------- world-wide barrier ----------

PointSpec Barrier(const std::string& sync) {
  PointSpec s;
  s.axes["sync"] = sync;
  s.saturation = 0.3;  // idle CPU: only the barrier rule should say anything
  s.cores = 64;
  return s;
}

TEST(WorldBarrierRule, ConfirmedBySyncNone) {
  json r = MakeResult({MakeSeries(Barrier("world-barrier"), OneToEight(), [](int g) { return 50.0 + 25 * g; }),
                       MakeSeries(Barrier("none"), OneToEight(), [](int) { return 50.0; })},
                      "commbench sweep --groups 1..8 --sync world-barrier,none");
  json d = Diagnose(r);
  CheckInvariants(d);
  ASSERT_FALSE(d["findings"].empty());
  EXPECT_EQ(d["findings"][0]["rule"], "world_barrier");
  EXPECT_EQ(d["findings"][0]["status"], "confirmed");
  EXPECT_EQ(CountConfirmed(d), 1);
  EXPECT_NEAR(d["findings"][0]["growth_cut"].get<double>(), 1.0, 0.05);
}

TEST(WorldBarrierRule, SuspectedWithoutNoneAndMergesTheSyncFlag) {
  json r = MakeResult({MakeSeries(Barrier("world-barrier"), OneToEight(), [](int g) { return 50.0 + 25 * g; })},
                      "commbench sweep --groups 1..8 --sync world-barrier --out r.json");
  std::optional<Finding> f = Eval("world_barrier", r);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, FindingStatus::kSuspected);
  EXPECT_EQ(f->confirm_command, "commbench sweep --groups 1..8 --sync world-barrier,none --out r-ab.json");
}

TEST(WorldBarrierRule, RuledOutWhenSyncNoneGrowsAlike) {
  json r = MakeResult({MakeSeries(Barrier("world-barrier"), OneToEight(), [](int g) { return 50.0 + 25 * g; }),
                       MakeSeries(Barrier("none"), OneToEight(), [](int g) { return 48.0 + 25 * g; })},
                      "commbench sweep");
  std::optional<Finding> f = Eval("world_barrier", r);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, FindingStatus::kRuledOut);
  json d = Diagnose(r);
  EXPECT_EQ(CountConfirmed(d), 0);
  ASSERT_EQ(d["ruled_out"].size(), 1u);
  EXPECT_EQ(d["ruled_out"][0]["rule"], "world_barrier");
  // ruled_out[] carries the A/B that rules it out, with an interval entirely below 0.3.
  const json& ab = d["ruled_out"][0]["ab"];
  ASSERT_EQ(ab.size(), 1u) << d["ruled_out"][0].dump(1);
  EXPECT_EQ(ab[0]["outcome"], "rules out");
  EXPECT_EQ(ab[0]["partner"], "--sync none");
  EXPECT_EQ(ab[0]["factor"], "sync");
  EXPECT_LT(ab[0]["cut_ci95"][1].get<double>(), 0.3);
  EXPECT_EQ(d["ruled_out"][0]["cut_ci95"], ab[0]["cut_ci95"]);
  EXPECT_FALSE(ab[0]["points"].empty());
}

// Two barrier series grow; only the second has a --sync none twin, and that A/B is inconclusive (cut 0.4), so
// both are suspected. The finding names the one whose A/B was measured, even though the series without a twin
// comes first (--explain adds a --cpus 0 barrier series with no twin).
TEST(WorldBarrierRule, PrefersTheSeriesWhoseAbWasMeasured) {
  PointSpec one_core = Barrier("world-barrier");
  one_core.axes["cpus"] = "0";
  PointSpec all_cores = Barrier("world-barrier");
  all_cores.axes["cpus"] = "";
  PointSpec all_none = Barrier("none");
  all_none.axes["cpus"] = "";
  json r = MakeResult({MakeSeries(one_core, OneToEight(), [](int g) { return 50.0 + 30 * g; }),
                       MakeSeries(all_cores, OneToEight(), [](int g) { return 50.0 + 25 * g; }),
                       MakeSeries(all_none, OneToEight(), [](int g) { return 50.0 + 15 * g; })},
                      "commbench sweep");
  std::optional<Finding> f = Eval("world_barrier", r);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, FindingStatus::kSuspected);
  ASSERT_FALSE(f->ab.empty());
  EXPECT_EQ(f->ab[0].partner, "--sync none");
}

TEST(WorldBarrierRule, QuietWithoutBarrier) {
  json r =
      MakeResult({MakeSeries(Barrier("none"), OneToEight(), [](int g) { return 50.0 + 25 * g; })}, "commbench sweep");
  EXPECT_FALSE(Eval("world_barrier", r));
}

// ---------- shared bandwidth ----------

// 400 B flat; 4 MB grows by ~the bytes at 10 GB/s per added group; aggregate near the 10 GB/s memcpy peak.
std::vector<std::vector<json>> BandwidthSweep(const std::string& concurrency, double saturation = 0.4) {
  PointSpec small;
  small.saturation = saturation;
  small.cores = 64;
  if (!concurrency.empty()) small.axes["concurrency"] = concurrency;
  PointSpec large = small;
  large.bytes = 4000000;
  bool seq = concurrency == "sequential";
  return {MakeSeries(small, OneToEight(), [](int) { return 30.0; }),
          MakeSeries(
              large, OneToEight(), [seq](int g) { return seq ? 450.0 : 400.0 * g + 50; },
              [](int g, PointSpec* s) { s->busbw_gbps = 4e6 / (400.0 * g + 50) / 1e3 * 1.0; })};
}

TEST(SharedBandwidthRule, SuspectedAndRankedFirstAtLargeSizes) {
  auto sweep = BandwidthSweep("");
  json r = MakeResult(sweep, "commbench sweep --groups 1..8 --bytes 400,4000000");
  json d = Diagnose(r);
  CheckInvariants(d);
  ASSERT_FALSE(d["findings"].empty());
  EXPECT_EQ(d["findings"][0]["rule"], "shared_bandwidth");
  EXPECT_EQ(d["findings"][0]["status"], "suspected");
  EXPECT_NE(d["findings"][0]["confirm_command"].get<std::string>().find("--concurrency concurrent,sequential"),
            std::string::npos);
  // The fits say which size is bandwidth-bound.
  for (const json& fit : d["fits"]) {
    EXPECT_EQ(fit["slope_vs_bytes"], fit["bytes"] == 400 ? "per-operation overhead" : "bandwidth-bound") << fit.dump();
  }
}

// Sequential groups confirm that the groups contend; the bytes-scaled slope and the aggregate near the peak say
// for bandwidth.
TEST(SharedBandwidthRule, ConfirmedBySequentialGroupsAndNamesBandwidth) {
  auto a = BandwidthSweep("concurrent");
  auto b = BandwidthSweep("sequential");
  json r = MakeResult({a[0], a[1], b[0], b[1]}, "commbench sweep");
  std::optional<Finding> f = Eval("shared_bandwidth", r);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, FindingStatus::kConfirmed);
  EXPECT_EQ(f->cause, "groups contend for memory or link bandwidth");
  EXPECT_NE(f->summary.find("The shared resource is memory or link bandwidth (bytes term"), std::string::npos)
      << f->summary;
  ASSERT_EQ(f->ab.size(), 1u);
  EXPECT_EQ(f->ab[0].partner, "groups one after another (--concurrency sequential)");
}

// Oversubscribed, saturated, and the slope the same at every size: the groups contend for CPU.
TEST(SharedBandwidthRule, SequentialAbOnCpuBoundGroupsNamesCpu) {
  std::vector<std::vector<json>> series;
  for (const char* concurrency : {"concurrent", "sequential"}) {
    for (int64_t bytes : {400LL, 4000000LL}) {
      PointSpec s = Oversubscribed("", 2);
      s.axes["concurrency"] = concurrency;
      s.bytes = bytes;
      const bool seq = std::string(concurrency) == "sequential";
      const double base = bytes > 1000 ? 500 : 60;
      series.push_back(MakeSeries(s, OneToEight(), [seq, base](int g) { return seq ? base : base + 30.0 * (g - 1); }));
    }
  }
  std::optional<Finding> f = Eval("shared_bandwidth", MakeResult(series, "commbench sweep", 1000, 1000));
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, FindingStatus::kConfirmed) << f->summary;
  EXPECT_EQ(f->cause, "groups contend for CPU");
  EXPECT_NE(f->summary.find("The shared resource is CPU: 8.0 ranks per core and CPU saturation 0.97"),
            std::string::npos)
      << f->summary;
  EXPECT_NE(f->summary.find("the slope does not scale with bytes"), std::string::npos) << f->summary;
}

// An idle CPU and a per-operation slope: the A/B confirms contention, and the finding says it cannot tell for what.
TEST(SharedBandwidthRule, SequentialAbWithoutEitherSignatureCannotTell) {
  std::vector<std::vector<json>> series;
  for (const char* concurrency : {"concurrent", "sequential"}) {
    PointSpec s;
    s.cores = 64;
    s.saturation = 0.2;
    s.axes["concurrency"] = concurrency;
    const bool seq = std::string(concurrency) == "sequential";
    series.push_back(MakeSeries(s, OneToEight(), [seq](int g) { return seq ? 60.0 : 60.0 + 30 * (g - 1); }));
  }
  std::optional<Finding> f = Eval("shared_bandwidth", MakeResult(series, "commbench sweep", 1000, 1000));
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, FindingStatus::kConfirmed);
  EXPECT_EQ(f->cause, "groups contend for a shared resource (which one: cannot tell)");
  EXPECT_NE(f->summary.find("cannot be told: one size only"), std::string::npos) << f->summary;
}

// Plant (a) of the planted-cause suite once ranked this first: 12 ranks on 2 saturated cores moving 64 KiB, the
// groups together at 68 % of the loopback TCP peak. Loopback TCP is moved by those same cores, so near its peak
// is the CPU's signature: no bandwidth finding without a sequential A/B, and with one the resource is CPU.
TEST(SharedBandwidthRule, NearTheLoopbackPeakOnOversubscribedCoresIsCpu) {
  auto cpu_limited = [](const std::string& concurrency, double saturation = 0.97) {
    PointSpec s = Oversubscribed("", 2);
    s.saturation = saturation;
    s.axes["concurrency"] = concurrency;
    s.bytes = 65536;
    const bool seq = concurrency == "sequential";
    return MakeSeries(
        s, OneToEight(), [seq](int g) { return seq ? 120.0 : 120.0 + 20 * (g - 1); },
        [](int g, PointSpec* p) { p->busbw_gbps = 1.4 / g; });  // together 1.4 GB/s at every G
  };
  const double tcp_peak = 2.0;  // GB/s: the aggregate is at 70 % of it
  EXPECT_FALSE(Eval("shared_bandwidth", MakeResult({cpu_limited("concurrent")}, "commbench sweep", 10, tcp_peak)));
  // Nor where the ranks wait for their peers' time slices and leave the cores partly idle (2 of 15 runs of plant
  // (a): saturation 0.68-0.81 at 6 ranks per core).
  EXPECT_FALSE(
      Eval("shared_bandwidth", MakeResult({cpu_limited("concurrent", 0.68)}, "commbench sweep", 10, tcp_peak)));
  std::optional<Finding> f = Eval("shared_bandwidth", MakeResult({cpu_limited("concurrent"), cpu_limited("sequential")},
                                                                 "commbench sweep", 10, tcp_peak));
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, FindingStatus::kConfirmed) << f->summary;
  EXPECT_EQ(f->cause, "groups contend for CPU") << f->summary;
  // On cores that are not oversubscribed the same aggregate is a bandwidth signature.
  auto roomy = [](int g, PointSpec* p) {
    p->busbw_gbps = 1.4 / g;
    p->cores = 64;
  };
  PointSpec s = Oversubscribed("", 64);
  s.bytes = 65536;
  std::optional<Finding> bw =
      Eval("shared_bandwidth", MakeResult({MakeSeries(
                                              s, OneToEight(), [](int g) { return 120.0 + 20 * (g - 1); }, roomy)},
                                          "commbench sweep", 10, tcp_peak));
  ASSERT_TRUE(bw);
  EXPECT_EQ(bw->cause, "groups contend for memory or link bandwidth") << bw->summary;
}

// The memory copy peak is the host's cores copying too (a CI run: two native ranks of 1 MiB time-sharing one core
// moved 130 % of it together, read as bandwidth while the --cpus A/B confirmed oversubscription). Over more ranks
// than cores, near it is CPU; on enough cores the same aggregate is still bandwidth.
TEST(SharedBandwidthRule, NearTheMemoryCopyPeakOnOversubscribedCoresIsCpu) {
  auto native = [](const std::string& concurrency, double cores) {
    PointSpec s = Oversubscribed("", cores);
    s.axes["backend"] = "native";
    s.axes["transport"] = "shm";
    s.axes["concurrency"] = concurrency;
    s.bytes = 1 << 20;
    const bool seq = concurrency == "sequential";
    return MakeSeries(
        s, OneToEight(), [seq](int g) { return seq ? 70.0 : 70.0 * g; },
        [](int g, PointSpec* p) { p->busbw_gbps = 12.0 / g; });  // together 12 GB/s, 120 % of the peak
  };
  const double memcpy_peak = 10.0, tcp_peak = 4.0;
  EXPECT_FALSE(
      Eval("shared_bandwidth", MakeResult({native("concurrent", 1)}, "commbench sweep", memcpy_peak, tcp_peak)));
  std::optional<Finding> cpu = Eval("shared_bandwidth", MakeResult({native("concurrent", 1), native("sequential", 1)},
                                                                   "commbench sweep", memcpy_peak, tcp_peak));
  ASSERT_TRUE(cpu);
  EXPECT_EQ(cpu->status, FindingStatus::kConfirmed) << cpu->summary;
  EXPECT_EQ(cpu->cause, "groups contend for CPU") << cpu->summary;
  std::optional<Finding> bw =
      Eval("shared_bandwidth", MakeResult({native("concurrent", 64)}, "commbench sweep", memcpy_peak, tcp_peak));
  ASSERT_TRUE(bw);
  EXPECT_EQ(bw->cause, "groups contend for memory or link bandwidth") << bw->summary;
  EXPECT_NE(bw->summary.find("of the memory copy peak"), std::string::npos) << bw->summary;
}

TEST(SharedBandwidthRule, WeakerFarBelowAMeasuredPeakWithABusyCpu) {
  // The same sweep on a host whose measured peak is 100x the aggregate: with the CPU busy, the bytes are CPU
  // time (copies, reduction), not a saturated link.
  auto busy = BandwidthSweep("", 0.95);
  // Near: the groups' 9.8 GB/s at G=8 against an 8 GB/s loopback peak (above 1.5x a peak is caches, not a link).
  std::optional<Finding> near = Eval("shared_bandwidth", MakeResult(busy, "commbench sweep", 10, 8));
  std::optional<Finding> far = Eval("shared_bandwidth", MakeResult(busy, "commbench sweep", 1000, 1000));
  ASSERT_TRUE(near);
  ASSERT_TRUE(far);
  EXPECT_LT(far->strength, near->strength - 0.3);
  EXPECT_NE(far->summary.find("far below the peak"), std::string::npos) << far->summary;
  EXPECT_NE(near->summary.find("they split one capacity"), std::string::npos) << near->summary;
  // With an idle CPU the flat aggregate still says "shared capacity", whatever the probe measured.
  std::optional<Finding> idle = Eval("shared_bandwidth", MakeResult(BandwidthSweep(""), "commbench sweep", 1000, 1000));
  ASSERT_TRUE(idle);
  EXPECT_GT(idle->strength, far->strength + 0.2);
}

TEST(SharedBandwidthRule, QuietForPerOperationOverhead) {
  // The slope is the same at every size and the aggregate is far from peak.
  PointSpec small;
  small.cores = 64;
  PointSpec large = small;
  large.bytes = 4000000;
  json r = MakeResult({MakeSeries(small, OneToEight(), [](int g) { return 30.0 + 20 * g; }),
                       MakeSeries(large, OneToEight(), [](int g) { return 500.0 + 20 * g; })},
                      "commbench sweep");
  EXPECT_FALSE(Eval("shared_bandwidth", r));
}

// In place, a group of one sends nothing, but whether it copies is what its times say (Gloo's took 44 us at 1 MiB,
// 1.5 us at 64 KiB): a slope that scales with bytes is bandwidth for it too. Its bus bandwidth is not compared
// with the host's peak.
TEST(SharedBandwidthRule, GroupsOfOneInPlaceAreJudgedByTheirSlopeAgainstBytes) {
  auto sweep = BandwidthSweep("");
  for (auto& series : sweep) {
    for (json& p : series) {
      p["group_size"] = 1;
      p["world"] = p["groups"];
    }
  }
  std::optional<Finding> f = Eval("shared_bandwidth", MakeResult(sweep, "commbench sweep"));
  ASSERT_TRUE(f);
  EXPECT_EQ(f->cause, "groups contend for memory or link bandwidth");
  EXPECT_EQ(f->summary.find("GB/s together"), std::string::npos) << f->summary;  // no peak comparison
  // The same growth at every size is per-operation overhead: no bandwidth signature, and no A/B to report.
  PointSpec small;
  small.cores = 64;
  small.group_size = 1;
  PointSpec large = small;
  large.bytes = 4000000;
  json flat_in_bytes = MakeResult({MakeSeries(small, OneToEight(), [](int g) { return 30.0 + 20 * g; }),
                                   MakeSeries(large, OneToEight(), [](int g) { return 500.0 + 20 * g; })},
                                  "commbench sweep");
  EXPECT_FALSE(Eval("shared_bandwidth", flat_in_bytes));
}

// ---------- wake-up latency ----------

PointSpec Sleepy(const std::string& pin, double vol_per_rank_iter) {
  PointSpec s;
  s.axes["pin"] = pin;
  s.cores = 64;
  s.saturation = 0.25;
  s.vol_ctx_per_iter = vol_per_rank_iter;
  return s;
}

std::vector<json> SleepySeries(const std::string& pin, double vol, double slope) {
  return MakeSeries(
      Sleepy(pin, vol), OneToEight(), [slope](int g) { return 40 + slope * g; },
      [vol](int, PointSpec* s) { s->vol_ctx_per_iter = vol; });
}

TEST(WakeupLatencyRule, FiresOnBlockingWaitsAndIsConfirmedByPinning) {
  json alone = MakeResult({SleepySeries("none", 3, 12)}, "commbench sweep");
  std::optional<Finding> f = Eval("wakeup_latency", alone);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, FindingStatus::kSuspected);
  EXPECT_NE(f->confirm_command.find("--pin none,compact"), std::string::npos);

  json ab = MakeResult({SleepySeries("none", 3, 12), SleepySeries("compact", 3, 2)}, "commbench sweep");
  f = Eval("wakeup_latency", ab);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, FindingStatus::kConfirmed);
}

TEST(WakeupLatencyRule, APinnedSeriesBesideItsUnpinnedTwinIsOnlyTheAB) {
  // Pinning cut nothing: the unpinned series' finding is ruled out, and no finding asks for the A/B the sweep ran.
  json r = MakeResult({SleepySeries("none", 3, 12), SleepySeries("compact", 3, 12)}, "commbench sweep");
  json d = Diagnose(r);
  CheckInvariants(d);
  for (const json& f : d["findings"]) {
    EXPECT_EQ(f.value("confirm_command", std::string()).find("--pin none,compact"), std::string::npos) << f.dump(1);
  }
  std::optional<Finding> f = Eval("wakeup_latency", r);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, FindingStatus::kRuledOut);
  // Only pinned series in the sweep: then the unpinned run is the one to add.
  f = Eval("wakeup_latency", MakeResult({SleepySeries("compact", 3, 12)}, "commbench sweep"));
  ASSERT_TRUE(f);
  EXPECT_NE(f->confirm_command.find("--pin none,compact"), std::string::npos);
}

TEST(WakeupLatencyRule, QuietWhenRanksDoNotBlock) {
  EXPECT_FALSE(Eval("wakeup_latency", MakeResult({SleepySeries("none", 0, 12)}, "commbench sweep")));
  // Blocking but flat: no growth to explain.
  EXPECT_FALSE(Eval("wakeup_latency", MakeResult({SleepySeries("none", 3, 0)}, "commbench sweep")));
}

// ---------- straggler ----------

// Rank 5 (group 2 with pairs) is slow: groups 0-1 at 50 us, group 2 at 120 us; the max steps at G=3.
std::vector<json> StragglerSeries(bool planted) {
  PointSpec base;
  base.cores = 64;
  base.saturation = 0.3;
  return MakeSeries(
      base, OneToEight(), [planted](int g) { return planted && g >= 3 ? 120.0 : 50.0; },
      [planted](int g, PointSpec* s) {
        s->group_p50.assign(static_cast<size_t>(g), 50.0);
        if (planted && g >= 3) {
          s->group_p50[2] = 120;
          s->slowest_group = 2;
          s->slowest_rank = 5;
          s->start_skew_us = 70;
        }
      });
}

TEST(StragglerRule, NamesTheGroupAndRank) {
  json r = MakeResult({StragglerSeries(true)}, "commbench sweep --groups 1..8");
  std::optional<Finding> f = Eval("straggler", r);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->cause, "straggler group 2 (rank 5)");
  EXPECT_EQ(f->status, FindingStatus::kSuspected);
  EXPECT_GT(f->strength, 0.9);  // consistent, and the step is exactly where group 2 joins
  json d = Diagnose(r);
  CheckInvariants(d);
  EXPECT_EQ(d["findings"][0]["rule"], "straggler");
  EXPECT_EQ(d["fits"][0]["model"], "step");
  EXPECT_EQ(d["fits"][0]["change_point"], 3);
}

TEST(StragglerRule, QuietWhenGroupsAreEven) {
  EXPECT_FALSE(Eval("straggler", MakeResult({StragglerSeries(false)}, "commbench sweep")));
}

// A real planted straggler (commbench sweep --groups 1..3 --test-only-slow-rank 3:2000 on a loaded 2-core host):
// the max goes 32.6 -> 5774 -> 5928 us, group 1 is ~190x the others, which stay at the G=1 time. With three
// points the fit may call it linear, and the sleeping rank also looks like blocking waits (wakeup_latency at
// 0.7): the straggler must still rank first, because only its group got slower. Sampled at G = 1, 3, 4 here,
// so that a step fit puts the change at G=3, not where group 1 joins.
std::vector<json> ThreePointStraggler(double others_us) {
  PointSpec base;
  base.cores = 2;
  base.saturation = 0.16;
  base.vol_ctx_per_iter = 4.5;
  return MakeSeries(
      base, {1, 3, 4}, [](int g) { return g == 1   ? 32.6
                                          : g == 3 ? 5774.1
                                                   : 5927.8; },
      [others_us](int g, PointSpec* s) {
        s->group_p50.assign(static_cast<size_t>(g), g == 1 ? 32.6 : others_us);
        if (g >= 2) {
          s->group_p50[1] = g == 3 ? 5774.1 : 5927.8;
          s->slowest_group = 1;
          s->slowest_rank = 3;
        }
      });
}

TEST(StragglerRule, RankedFirstWhenOnlyItsGroupGrows) {
  json r = MakeResult({ThreePointStraggler(30)}, "commbench sweep --groups 1..3 --test-only-slow-rank 3:2000");
  std::optional<Finding> f = Eval("straggler", r);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->cause, "straggler group 1 (rank 3)");
  EXPECT_GT(f->strength, 0.85);  // 0.4 + 0.3 * 2/3 (two multi-group points) + 0.3
  EXPECT_NE(f->summary.find("the growth is that group's alone"), std::string::npos) << f->summary;
  json d = Diagnose(r);
  CheckInvariants(d);
  EXPECT_EQ(d["findings"][0]["rule"], "straggler");
}

TEST(StragglerRule, NoStepBonusForAMarginalGroup) {
  // Seen on a busy 2-core host: group 1 came out 1.4x the others and the series stepped where it joined.
  PointSpec base;
  base.cores = 2;
  std::vector<json> series = MakeSeries(
      base, {1, 2, 3, 4}, [](int g) { return g == 1 ? 1897.0 : 8242.0; },
      [](int g, PointSpec* s) {
        s->group_p50.assign(static_cast<size_t>(g), g == 1 ? 1897.0 : 5900.0);
        if (g >= 2) {
          s->group_p50[1] = 8242;
          s->slowest_group = 1;
          s->slowest_rank = 2;
        }
      });
  std::optional<Finding> f = Eval("straggler", MakeResult({series}, "commbench sweep --groups 1..4"));
  ASSERT_TRUE(f);
  EXPECT_LE(f->strength, 0.71);
  EXPECT_EQ(f->summary.find("joins"), std::string::npos) << f->summary;
}

// Plant (a) (`--groups 1..6 --sizes 64K --pin none,compact`, nothing slow planted) once ranked a straggler first
// (0.58) above oversubscription (0.5): on the pinned series, 12 ranks on 2 cores, group 2 was the slowest in 3 of
// 5 multi-group points at 1.35x the others. On cores the ranks outnumber, that is the scheduler's chance.
TEST(StragglerRule, ASlowestGroupByChanceOnOversubscribedCoresRanksBelowOversubscription) {
  const std::vector<int> slowest_at = {1, 2, 2, 0, 2};  // the slowest group at G=2..6
  auto series = [&slowest_at](double cores) {
    PointSpec base = Oversubscribed("", cores);
    base.saturation = 0.8;
    base.bytes = 65536;
    base.axes["pin"] = "compact";
    return MakeSeries(
        base, {1, 2, 3, 4, 5, 6}, [](int g) { return g == 1 ? 148.5 : 250.0 + 20 * (g - 2); },
        [&slowest_at](int g, PointSpec* s) {
          if (g == 1) return;
          const int slow = slowest_at[static_cast<size_t>(g - 2)];
          s->group_p50.assign(static_cast<size_t>(g), s->p50_us / 1.35);
          s->group_p50[static_cast<size_t>(slow)] = s->p50_us;
          s->slowest_group = slow;
          s->slowest_rank = 2 * slow + 1;
        });
  };
  const json r = MakeResult({series(2)}, "commbench sweep --groups 1..6 --sizes 64K --pin compact");
  std::optional<Finding> straggler = Eval("straggler", r);
  std::optional<Finding> oversubscription = Eval("cpu_oversubscription", r);
  ASSERT_TRUE(straggler && oversubscription);
  EXPECT_LT(straggler->strength, oversubscription->strength) << straggler->summary << "\n" << oversubscription->summary;
  // With cores to spare, the same group is worth its full strength.
  std::optional<Finding> roomy = Eval("straggler", MakeResult({series(64)}, "commbench sweep --groups 1..6"));
  ASSERT_TRUE(roomy);
  EXPECT_NEAR(roomy->strength, straggler->strength + 0.15, 1e-9);
}

TEST(StragglerRule, TwoMultiGroupPointsAreWeakerEvidence) {
  // The same marginal group at G=2 and 3 only: "slowest in 2 of 2" must not tie a signature that holds at
  // every point (shared bandwidth's bytes-scaled slope scores 0.7).
  PointSpec base;
  base.cores = 2;
  std::vector<json> series = MakeSeries(
      base, {1, 2, 3}, [](int g) { return 1340.0 + 5000 * (g - 1); },
      [](int g, PointSpec* s) {
        s->group_p50.assign(static_cast<size_t>(g), 1340.0 + 3800 * (g - 1));
        if (g >= 2) {
          s->group_p50[1] = 1340.0 + 5000 * (g - 1);
          s->slowest_group = 1;
          s->slowest_rank = 2;
        }
      });
  std::optional<Finding> f = Eval("straggler", MakeResult({series}, "commbench sweep --groups 1..3"));
  ASSERT_TRUE(f);
  EXPECT_LT(f->strength, 0.65);
}

TEST(StragglerRule, NotBoostedWhenTheOtherGroupsGrowToo) {
  // The same slowest group, but the others grew 60x as well: a busy host, not one slow group. (The step where
  // group 1 joins is not sampled, so nothing lifts it above consistency.)
  std::optional<Finding> f =
      Eval("straggler", MakeResult({ThreePointStraggler(2000)}, "commbench sweep --groups 1..3"));
  ASSERT_TRUE(f);
  EXPECT_EQ(f->summary.find("alone"), std::string::npos) << f->summary;
  EXPECT_LE(f->strength, 0.71);
}

// ---------- set-up growth ----------

TEST(SetupGrowthRule, FiresWhenSetupGrowsAndLoopIsFlat) {
  PointSpec base;
  base.cores = 64;
  json r = MakeResult(
      {MakeSeries(
          base, OneToEight(), [](int) { return 50.0; }, [](int g, PointSpec* s) { s->setup_s = 0.02 + 0.06 * g; })},
      "commbench sweep");
  json d = Diagnose(r);
  CheckInvariants(d);
  ASSERT_EQ(d["findings"].size(), 1u);
  EXPECT_EQ(d["findings"][0]["rule"], "setup_growth");
  EXPECT_EQ(d["findings"][0]["status"], "suspected");
  EXPECT_EQ(d["verdict"], "growth");
  EXPECT_NE(d["findings"][0]["summary"].get<std::string>().find("while the timed loop stays flat"), std::string::npos);
}

TEST(SetupGrowthRule, RanksBelowALoopThatGrowsInAnotherSeries) {
  // Series 0: loop flat, set-up grows (the strong reading alone). Series 1: its loop grows 8x with the groups.
  PointSpec small, large;
  small.bytes = 400;
  large.bytes = 65536;
  auto setup = [](int g, PointSpec* s) { s->setup_s = 0.02 + 0.06 * g; };
  json r = MakeResult({MakeSeries(
                           small, OneToEight(), [](int) { return 50.0; }, setup),
                       MakeSeries(
                           large, OneToEight(), [](int g) { return 100.0 * g; }, setup)},
                      "commbench sweep");
  json d = Diagnose(r);
  CheckInvariants(d);
  ASSERT_GE(d["findings"].size(), 2u) << d.dump(1);
  EXPECT_NE(d["findings"][0]["rule"], "setup_growth") << d.dump(1);
  bool setup_found = false;
  for (const json& f : d["findings"]) {
    if (f["rule"] != "setup_growth") continue;
    setup_found = true;
    EXPECT_LT(f["score"].get<double>(), d["findings"][0]["score"].get<double>());
  }
  EXPECT_TRUE(setup_found) << d.dump(1);
}

TEST(SetupGrowthRule, QuietWhenSetupIsFlatOrTiny) {
  PointSpec base;
  json flat = MakeResult({MakeSeries(base, OneToEight(), [](int) { return 50.0; })}, "commbench sweep");
  EXPECT_FALSE(Eval("setup_growth", flat));
  // Triples, but adds only 8 ms: nobody waits for that.
  json tiny = MakeResult(
      {MakeSeries(
          base, OneToEight(), [](int) { return 50.0; }, [](int g, PointSpec* s) { s->setup_s = 0.001 * g; })},
      "commbench sweep");
  EXPECT_FALSE(Eval("setup_growth", tiny));
}

// ---------- legacy default stream ----------

PointSpec Gpu(const std::string& stream, const std::string& sync) {
  PointSpec s;
  s.axes["backend"] = "nccl";
  s.axes["transport"] = "device";
  s.axes["stream"] = stream;
  s.axes["sync"] = sync;
  s.axes["h2d"] = "pageable";
  s.group_size = 1;
  s.cores = 16;
  s.saturation = 0.2;
  return s;
}

// A GPU collective moves device memory: the host's memory copy peak says nothing about it, so the groups'
// aggregate is not compared with it (the lent H200 read "195% of the memory copy peak"); the bytes term still
// names bandwidth.
TEST(SharedBandwidthRule, GpuSeriesAreNotComparedWithTheHostPeak) {
  PointSpec small = Gpu("dedicated", "event");
  small.axes["in_place"] = false;  // a group of one rank out of place copies its input: it moves bytes
  PointSpec large = small;
  large.bytes = 4000000;
  json r = MakeResult({MakeSeries(small, OneToEight(), [](int) { return 30.0; }),
                       MakeSeries(
                           large, OneToEight(), [](int g) { return 400.0 * g + 50; },
                           [](int g, PointSpec* s) { s->busbw_gbps = 4e6 / (400.0 * g + 50) / 1e3; })},
                      "commbench sweep --backends nccl", /*memcpy_gbps=*/1, /*tcp_gbps=*/1);
  std::optional<Finding> f = Eval("shared_bandwidth", r);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->summary.find("peak"), std::string::npos) << f->summary;
  EXPECT_NE(f->summary.find("bytes term"), std::string::npos) << f->summary;
  // The same series on a CPU backend (pairs over TCP) is compared with its host peak.
  PointSpec cpu_small, cpu_large;
  cpu_small.cores = cpu_large.cores = 16;
  cpu_large.bytes = 4000000;
  json c = MakeResult({MakeSeries(cpu_small, OneToEight(), [](int) { return 30.0; }),
                       MakeSeries(
                           cpu_large, OneToEight(), [](int g) { return 400.0 * g + 50; },
                           [](int g, PointSpec* s) { s->busbw_gbps = 4e6 / (400.0 * g + 50) / 1e3; })},
                      "commbench sweep", 1, 1);
  std::optional<Finding> fc = Eval("shared_bandwidth", c);
  ASSERT_TRUE(fc);
  EXPECT_NE(fc->summary.find("of the loopback TCP peak"), std::string::npos) << fc->summary;
}

TEST(LegacyDefaultStreamRule, ConfirmedByDedicatedStream) {
  json r = MakeResult({MakeSeries(Gpu("legacy-default", "event"), OneToEight(), [](int g) { return 100.0 * g; }),
                       MakeSeries(Gpu("dedicated", "event"), OneToEight(), [](int g) { return 100.0 + 3 * g; })},
                      "commbench sweep --backends nccl --stream legacy-default,dedicated");
  json d = Diagnose(r);
  CheckInvariants(d);
  ASSERT_FALSE(d["findings"].empty());
  EXPECT_EQ(d["findings"][0]["rule"], "legacy_default_stream");
  EXPECT_EQ(d["findings"][0]["status"], "confirmed");
  EXPECT_EQ(CountConfirmed(d), 1);
}

// The stream A/B varies the stream only: a dedicated-stream partner that also pinned the copy is not used.
TEST(LegacyDefaultStreamRule, APartnerThatAlsoChangedTheCopyIsNotUsed) {
  PointSpec pinned = Gpu("dedicated", "event");
  pinned.axes["h2d"] = "pinned";
  json r = MakeResult({MakeSeries(Gpu("legacy-default", "event"), OneToEight(), [](int g) { return 100.0 * g; }),
                       MakeSeries(pinned, OneToEight(), [](int g) { return 100.0 + 3 * g; })},
                      "commbench sweep --backends nccl --stream legacy-default,dedicated --h2d pinned");
  std::optional<Finding> f = Eval("legacy_default_stream", r);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, FindingStatus::kSuspected);
  EXPECT_TRUE(f->ab.empty());
  json d = Diagnose(r);
  EXPECT_EQ(CountConfirmed(d), 0) << d["findings"].dump(1);
}

TEST(LegacyDefaultStreamRule, SuspectedAloneQuietOnDedicated) {
  json alone = MakeResult({MakeSeries(Gpu("legacy-default", "event"), OneToEight(), [](int g) { return 100.0 * g; })},
                          "commbench sweep --backends nccl");
  std::optional<Finding> f = Eval("legacy_default_stream", alone);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, FindingStatus::kSuspected);
  EXPECT_EQ(f->confirm_command, "commbench sweep --backends nccl --stream legacy-default,dedicated");
  json dedicated = MakeResult({MakeSeries(Gpu("dedicated", "event"), OneToEight(), [](int g) { return 100.0 * g; })},
                              "commbench sweep --backends nccl");
  EXPECT_FALSE(Eval("legacy_default_stream", dedicated));
}

// ---------- pageable host-to-device copies ----------

PointSpec Copy(const std::string& h2d, const std::string& stream = "dedicated") {
  PointSpec s = Gpu(stream, "stream");
  s.axes["h2d"] = h2d;
  return s;
}

// The H200's scenario B shape (reports/examples/gpu): pageable copies grow the groups' time on a dedicated stream,
// pinned ones barely.
TEST(PageableH2dRule, ConfirmedByPinnedMemoryOnTheSameStream) {
  json r = MakeResult({MakeSeries(Copy("pageable"), OneToEight(), [](int g) { return 30.0 + 89 * g; }),
                       MakeSeries(Copy("pinned"), OneToEight(), [](int g) { return 36.0 + 9 * g; })},
                      "commbench sweep --backends nccl --h2d pageable,pinned");
  std::optional<Finding> f = Eval("pageable_h2d", r);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, FindingStatus::kConfirmed);
  EXPECT_EQ(f->cause, "pageable host-to-device copies");
  EXPECT_NE(f->fix.find("pin_memory=True"), std::string::npos) << f->fix;
  json d = Diagnose(r);
  CheckInvariants(d);
  EXPECT_EQ(d["findings"][0]["rule"], "pageable_h2d") << d["findings"].dump(1);
}

TEST(PageableH2dRule, RuledOutWhenPinnedCopiesGrowAlike) {
  json r = MakeResult({MakeSeries(Copy("pageable"), OneToEight(), [](int g) { return 30.0 + 89 * g; }),
                       MakeSeries(Copy("pinned"), OneToEight(), [](int g) { return 28.0 + 90 * g; })},
                      "commbench sweep --backends nccl --h2d pageable,pinned");
  std::optional<Finding> f = Eval("pageable_h2d", r);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, FindingStatus::kRuledOut);
}

// A partner that also moved the copy to another stream varies two factors: not the copy's A/B.
TEST(PageableH2dRule, SuspectedAloneOrBesideAPartnerOnAnotherStream) {
  json r =
      MakeResult({MakeSeries(Copy("pageable", "legacy-default"), OneToEight(), [](int g) { return 30.0 + 89 * g; }),
                  MakeSeries(Copy("pinned"), OneToEight(), [](int g) { return 36.0 + 9 * g; })},
                 "commbench sweep --backends nccl");
  std::optional<Finding> f = Eval("pageable_h2d", r);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, FindingStatus::kSuspected);
  EXPECT_TRUE(f->ab.empty());
  EXPECT_EQ(f->confirm_command, "commbench sweep --backends nccl --h2d pageable,pinned");
}

TEST(PageableH2dRule, QuietOnPinnedCopiesAndCpuBackends) {
  EXPECT_FALSE(
      Eval("pageable_h2d", MakeResult({MakeSeries(Copy("pinned"), OneToEight(), [](int g) { return 30.0 + 89 * g; })},
                                      "commbench sweep --backends nccl")));
  EXPECT_FALSE(Eval(
      "pageable_h2d",
      MakeResult({MakeSeries(Barrier("none"), OneToEight(), [](int g) { return 30.0 + 89 * g; })}, "commbench sweep")));
}

// ---------- host sync ----------

TEST(HostSyncRule, ConfirmedByEventSync) {
  json r = MakeResult({MakeSeries(Gpu("dedicated", "stream"), OneToEight(), [](int g) { return 40.0 + 30 * g; }),
                       MakeSeries(Gpu("dedicated", "event"), OneToEight(), [](int) { return 25.0; })},
                      "commbench sweep --backends nccl --sync stream,event");
  std::optional<Finding> f = Eval("host_sync", r);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, FindingStatus::kConfirmed);
  json alone = MakeResult({MakeSeries(Gpu("dedicated", "stream"), OneToEight(), [](int g) { return 40.0 + 30 * g; })},
                          "commbench sweep --backends nccl --sync stream");
  f = Eval("host_sync", alone);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, FindingStatus::kSuspected);
  EXPECT_EQ(f->confirm_command, "commbench sweep --backends nccl --sync stream,event,none");
}

TEST(HostSyncRule, QuietOnCpuBackendsAndEventSync) {
  json cpu =
      MakeResult({MakeSeries(Barrier("none"), OneToEight(), [](int g) { return 40.0 + 30 * g; })}, "commbench sweep");
  EXPECT_FALSE(Eval("host_sync", cpu));
  json ev = MakeResult({MakeSeries(Gpu("dedicated", "event"), OneToEight(), [](int g) { return 40.0 + 30 * g; })},
                       "commbench sweep");
  EXPECT_FALSE(Eval("host_sync", ev));
}

// ---------- late arrival (issue 52) ----------

json SummaryJson(double v) {
  return {{"min", v * 0.9},    {"p50", v},  {"p95", v * 1.1},      {"p99", v * 1.2},      {"max", v * 2}, {"mean", v},
          {"stddev", v * 0.1}, {"cv", 0.1}, {"ci95_lo", v * 0.99}, {"ci95_hi", v * 1.01}, {"n", 1000}};
}

// A synthetic point's transfer and skew (issue 52): the point's, and group `late_group`'s with its most often
// last rank; the other groups on time.
void SetArrival(json* p, double transfer_us, double skew_us, int late_group = -1, int last_rank = -1,
                double share = 0) {
  (*p)["arrival"] = {{"method", "clock"}, {"transfer_us", SummaryJson(transfer_us)}, {"skew_us", SummaryJson(skew_us)}};
  for (json& g : (*p)["per_group"]) {
    const bool late = g["group"] == late_group;
    g["transfer_p50_us"] = transfer_us;
    g["skew_p50_us"] = late ? skew_us : 1.0;
    g["last_arrival_rank"] = late ? last_rank : 2 * g["group"].get<int>();
    g["last_arrival_share"] = late ? share : 0.5;
  }
}

// The real plant (sweep --groups 1..3 --test-only-late-rank 3:2000): rank 3 sleeps 2 ms before every op, outside
// the clock; its peer waits inside the op. The loop cost steps with group 1 while the collective's own time stays
// at ~30 us and the skew carries the growth, rank 3 last in nearly every iteration.
std::vector<json> LateRankSeries(double share, double cores, bool transfer_grows = false) {
  std::vector<json> series = ThreePointStraggler(30);
  for (json& p : series) {
    const int g = p["groups"].get<int>();
    const double time = p["time_us"]["mean"].get<double>();
    const double transfer = transfer_grows ? time - 5 : 30;
    SetArrival(&p, transfer, g == 1 ? 3 : time - transfer - 2, g == 1 ? -1 : 1, g == 1 ? -1 : 3, share);
    p["cpu"]["cores_available"] = cores;
    p["cpu"]["threads_per_core"] = p["world"].get<double>() / cores;
  }
  return series;
}

TEST(LateArrivalRule, FiresOnAFlatTransferUnderAGrowingSkewAndNamesTheStraggler) {
  json r = MakeResult({LateRankSeries(0.98, 2)}, "commbench sweep --groups 1..3 --test-only-late-rank 3:2000");
  std::optional<Finding> f = Eval("late_arrival", r);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, FindingStatus::kSuspected);  // no A/B in a sweep varies it
  EXPECT_EQ(f->cause, "late arrival: straggler rank 3");
  EXPECT_NE(f->summary.find("the collective's own time stays flat (30.0 us at G=1, 30.0 us at G=4, 0% of the growth"),
            std::string::npos)
      << f->summary;
  EXPECT_NE(f->summary.find("Rank 3 (group 1) arrives last in 98% of the iterations"), std::string::npos) << f->summary;
  EXPECT_GT(f->strength, 0.95);
  json d = Diagnose(r);
  CheckInvariants(d);
  ASSERT_FALSE(d["findings"].empty());
  EXPECT_EQ(d["findings"][0]["rule"], "late_arrival") << d.dump(1);
  // The straggler rule reads a slow group's op; here the op is not slower, and late_arrival names the rank.
  EXPECT_FALSE(Eval("straggler", r));
  // The growth fit says what the growth is made of.
  ASSERT_TRUE(d["fits"][0].contains("split")) << d["fits"][0].dump();
  EXPECT_EQ(d["fits"][0]["split"]["reading"], "late arrival");
  EXPECT_NEAR(d["fits"][0]["split"]["transfer_growth_us"].get<double>(), 0, 1e-9);
}

TEST(LateArrivalRule, NoOneRankLastOnOversubscribedCoresIsScheduling) {
  json r = MakeResult({LateRankSeries(0.4, 2)}, "commbench sweep --groups 1..3");
  std::optional<Finding> f = Eval("late_arrival", r);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->cause, "late arrival: scheduling (ranks outnumber cores)");
  EXPECT_NE(f->summary.find("scheduling, ranks waiting for a core"), std::string::npos) << f->summary;
}

TEST(LateArrivalRule, NoOneRankLastOnEnoughCoresIsHeldOutsideTheOp) {
  json r = MakeResult({LateRankSeries(0.4, 64)}, "commbench sweep --groups 1..3");
  std::optional<Finding> f = Eval("late_arrival", r);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->cause, "late arrival (held outside the operation)");
}

// Rank 3 sleeping inside its clock (--test-only-slow-rank): the least any rank spent inside the op grows with the
// loop cost, so the op itself got slower: the straggler's, not late arrival.
TEST(LateArrivalRule, QuietWhenTheTransferCarriesTheGrowth) {
  json r = MakeResult({LateRankSeries(0.98, 2, true)}, "commbench sweep --groups 1..3 --test-only-slow-rank 3:2000");
  EXPECT_FALSE(Eval("late_arrival", r));
  std::optional<Finding> straggler = Eval("straggler", r);
  ASSERT_TRUE(straggler);
  EXPECT_EQ(straggler->cause, "straggler group 1 (rank 3)");
  json d = Diagnose(r);
  EXPECT_EQ(d["fits"][0]["split"]["reading"], "transfer") << d["fits"][0].dump();
}

// Files written before arrivals were recorded: no split, and the rules read them as before.
TEST(LateArrivalRule, QuietWithoutArrivals) {
  json r = MakeResult({ThreePointStraggler(30)}, "commbench sweep --groups 1..3");
  EXPECT_FALSE(Eval("late_arrival", r));
  EXPECT_TRUE(Eval("straggler", r));
  EXPECT_FALSE(Diagnose(r)["fits"][0].contains("split"));
}

// Contention slows the operation itself. A large-size series that grows by the bytes, but whose collective's own
// time stays flat while the skew carries the growth, is not bandwidth: shared_bandwidth stays quiet on it and
// late_arrival speaks; with the transfer carrying the growth, shared_bandwidth fires as before.
TEST(LateArrivalRule, SharedBandwidthStaysQuietWhenOnlyTheSkewGrows) {
  for (const bool transfer_grows : {false, true}) {
    std::vector<std::vector<json>> sweep = BandwidthSweep("");
    for (std::vector<json>& series : sweep) {
      for (json& p : series) {
        const double time = p["time_us"]["mean"].get<double>();
        const double transfer = transfer_grows ? time - 10 : std::min(time, 45.0);
        SetArrival(&p, transfer, time - transfer, 0, 1, 0.5);
      }
    }
    json r = MakeResult(sweep, "commbench sweep --groups 1..8 --bytes 400,4000000");
    EXPECT_EQ(Eval("shared_bandwidth", r).has_value(), transfer_grows);
    EXPECT_EQ(Eval("late_arrival", r).has_value(), !transfer_grows);
  }
}

// ---------- the registry ----------

// A finding names its series as the user would tell them apart: groups taking turns are not the concurrent loop.
TEST(Describe, NamesTheAxesThatSetASeriesApart) {
  SeriesData s;
  s.axes = {{"backend", "gloo"}, {"op", "allreduce"},          {"algo", "ring"}, {"bytes", "400"}, {"cpus", "0"},
            {"sync", "none"},    {"concurrency", "concurrent"}};
  EXPECT_EQ(Describe(s), "gloo allreduce/ring 400 B cpus=0");
  s.axes["concurrency"] = "sequential";
  s.point.concurrency = Concurrency::kSequential;  // rules read the typed axes
  EXPECT_EQ(Describe(s), "gloo allreduce/ring 400 B cpus=0 concurrency=sequential");
}

TEST(Registry, EveryRuleHasANameAndDescription) {
  std::set<std::string> names;
  for (const auto& r : Rules()) {
    EXPECT_FALSE(r->description().empty());
    EXPECT_TRUE(names.insert(r->name()).second) << r->name();
    EXPECT_EQ(FindRule(r->name()), r.get());
  }
  EXPECT_GE(names.size(), 8u);
  EXPECT_EQ(FindRule("no_such_rule"), nullptr);
}

}  // namespace
}  // namespace diagnose
}  // namespace commbench
