#include "lib/gate/compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <random>

#include "lib/core/temp_dir.h"

namespace commbench::gate {
namespace {

using nlohmann::json;
using result::PointResult;
using result::ResultFile;

json Env() {
  return {{"host", "runner-1"},
          {"cpu_model", "Xeon"},
          {"cores_online", 2},
          {"affinity", "0-1"},
          {"backends", {{"gloo", {{"version", "0.0~git20220518"}, {"available", true}}}}},
          {"variables", json::object()}};
}

// `repeats` entries per point id, p50 = median * noise.
ResultFile File(const std::map<std::string, double>& medians, int repeats, uint64_t seed, json env = Env()) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0, 0.01);
  ResultFile f;
  f.header.environment.fingerprint = std::move(env);
  for (int r = 0; r < repeats; ++r) {
    for (const auto& [id, m] : medians) {
      PointResult p;
      p.id = id;
      p.time_us.p50 = m * std::exp(noise(rng));
      f.points.push_back(p);
    }
  }
  return f;
}

TEST(CompareTest, SameBuildPasses) {
  Comparison c = Compare(File({{"a", 100}, {"b", 50}}, 6, 1), File({{"a", 100}, {"b", 50}}, 6, 2));
  EXPECT_EQ(c.outcome, Outcome::kPass) << c.points[0].decision.reason;
  EXPECT_EQ(c.ExitCode(), 0);
  ASSERT_EQ(c.points.size(), 2u);
  EXPECT_EQ(c.points[0].base_us.size(), 6u);
}

TEST(CompareTest, OneSlowerPointIsARegression) {
  Comparison c = Compare(File({{"a", 100}, {"b", 50}}, 6, 1), File({{"a", 100}, {"b", 60}}, 6, 2));
  EXPECT_EQ(c.outcome, Outcome::kRegression);
  EXPECT_EQ(c.ExitCode(), 1);
  EXPECT_EQ(c.points[1].decision.change, Change::kSlower) << c.points[1].decision.reason;
  EXPECT_EQ(c.points[0].decision.change, Change::kUnchanged);
}

// A stored baseline's other jobs of its build (gate --calibrate's): with two or more, a new job is judged as one
// more of them. A job 12 % slower in every repeat is a regression repeat by repeat, and within what jobs of the same
// build drift apart (90-110 % of the baseline's) judged as a job; a 2x job stands out of quiet jobs either way.
TEST(CompareTest, AStoredBaselinesOtherJobsJudgeTheNewJobAsOneMore) {
  const ResultFile base = File({{"a", 100}}, 20, 1), drifted = File({{"a", 112}}, 20, 2);
  EXPECT_EQ(Compare(base, drifted).points[0].decision.change, Change::kSlower);
  CompareOptions options;
  options.base_jobs_us = {{"a", {110}}};  // one other job: not enough to tell a spread, repeat by repeat
  EXPECT_EQ(Compare(base, drifted, options).points[0].decision.change, Change::kSlower);
  options.base_jobs_us = {{"a", {90, 110}}};
  const Comparison c = Compare(base, drifted, options);
  EXPECT_EQ(c.points[0].decision.change, Change::kInconclusive) << c.points[0].decision.reason;
  EXPECT_EQ(c.points[0].decision.reason.rfind("the jobs of the baseline's build spread too much: 3 of them", 0), 0u)
      << c.points[0].decision.reason;
  EXPECT_EQ(c.ExitCode(), 3);
  options.base_jobs_us = {{"a", {100.4, 99.7, 100.2, 99.9}}};
  const Comparison twice = Compare(base, File({{"a", 200}}, 20, 3), options);
  EXPECT_EQ(twice.points[0].decision.change, Change::kSlower) << twice.points[0].decision.reason;
  EXPECT_NE(twice.points[0].decision.reason.find("over 5 runs"), std::string::npos) << twice.points[0].decision.reason;
}

// Adds `judged` repeats of `side` to s, of which the first `disturbed` were judged disturbed, plus `replaced`
// disturbed ones re-run.
void AddRepeats(SequentialPoint* s, const std::string& side, int judged, int disturbed, int replaced = 0) {
  // A disturbed repeat's outside processes took a fifth of the ranks' CPUs (a stretch of 1.25 at most).
  for (int i = 0; i < judged; ++i) {
    s->repeats.push_back({side, i, i < disturbed, false, i < disturbed ? 0.2 : 0.0, 0, "", -1});
  }
  for (int i = 0; i < replaced; ++i) s->repeats.push_back({side, i, true, true, 0.3, 0, "outside", -1});
  s->disturbed += disturbed + replaced;
  s->replaced += replaced;
}

// A stored baseline's gate: side "new" alone.
SequentialPoint Repeats(int judged, int disturbed, int replaced) {
  SequentialPoint s;
  AddRepeats(&s, "new", judged, disturbed, replaced);
  return s;
}

// A slowdown, or no change, measured on repeats a busy runner disturbed (past the re-run bound) is not a verdict: the
// point is inconclusive and says why (a load can shrink a change into the floor as well as make one). Disturbed
// repeats that were re-run, or a few judged ones, leave the verdict alone.
TEST(CompareTest, AVerdictJudgedOnDisturbedRepeatsIsInconclusive) {
  const ResultFile base = File({{"a", 100}, {"b", 50}}, 20, 1), now = File({{"a", 100}, {"b", 60}}, 20, 2);
  CompareOptions busy;
  busy.sequential["a"] = Repeats(20, 12, 5);
  busy.sequential["b"] = Repeats(20, 12, 5);
  Comparison c = Compare(base, now, busy);
  EXPECT_EQ(c.outcome, Outcome::kInconclusive);
  EXPECT_EQ(c.ExitCode(), 3);
  EXPECT_EQ(c.points[0].decision.change, Change::kInconclusive) << c.points[0].decision.reason;
  EXPECT_NE(c.points[0].decision.reason.find("not judged, the runner was busy"), std::string::npos)
      << c.points[0].decision.reason;
  EXPECT_EQ(c.points[1].decision.change, Change::kInconclusive);
  EXPECT_NE(c.points[1].decision.reason.find("new: 12 of 20 judged repeats disturbed"), std::string::npos)
      << c.points[1].decision.reason;

  CompareOptions quiet;
  quiet.sequential["a"] = Repeats(20, 2, 5);  // 2 of 20 judged: at the share, not past it; 5 re-run
  quiet.sequential["b"] = Repeats(20, 2, 5);
  c = Compare(base, now, quiet);
  EXPECT_EQ(c.outcome, Outcome::kRegression);
  EXPECT_EQ(c.points[0].decision.change, Change::kUnchanged) << c.points[0].decision.reason;
  EXPECT_EQ(c.points[1].decision.change, Change::kSlower) << c.points[1].decision.reason;
  EXPECT_EQ(JudgedOnDisturbed(Repeats(20, 3, 0)), "new: 3 of 20 judged repeats disturbed");
  EXPECT_EQ(JudgedOnDisturbed(Repeats(20, 2, 9)), "");
}

// gate --ab's sides: `judged` repeats of side A and of side B, the first `disturbed_a` and `disturbed_b` disturbed.
SequentialPoint AbRepeats(int judged, int disturbed_a, int disturbed_b) {
  SequentialPoint s;
  AddRepeats(&s, "A", judged, disturbed_a);
  AddRepeats(&s, "B", judged, disturbed_b);
  return s;
}

// A load that held a CPU through a whole --ab job, or came and went, weighed on both interleaved sides alike: a change
// found there is judged, and says so; so is one larger than a heavier load on one side could make. A load on one
// side that could make the change, or a stored baseline's single side, keep the point inconclusive.
TEST(CompareTest, ALoadBothAbSidesSharedIsJudged) {
  const ResultFile base = File({{"a", 100}, {"b", 50}}, 20, 1), now = File({{"a", 100}, {"b", 60}}, 20, 2);
  CompareOptions steady;
  steady.sequential["a"] = AbRepeats(20, 20, 19);
  steady.sequential["b"] = AbRepeats(20, 20, 19);
  Comparison c = Compare(base, now, steady);
  EXPECT_EQ(c.outcome, Outcome::kRegression);
  EXPECT_EQ(c.points[0].decision.change, Change::kUnchanged) << c.points[0].decision.reason;
  EXPECT_NE(c.points[0].decision.reason.find("judged under a load both sides shared"), std::string::npos);
  EXPECT_EQ(c.points[1].decision.change, Change::kSlower) << c.points[1].decision.reason;
  EXPECT_NE(c.points[1].decision.reason.find("judged under a load both sides shared (A: 20 of 20, B: 19 of 20 judged "
                                             "repeats disturbed; A's typical load could make it +1.1% slower than B)"),
            std::string::npos)
      << c.points[1].decision.reason;

  for (const auto& [what, s] : std::vector<std::pair<std::string, SequentialPoint>>{
           {"came and went alike", AbRepeats(20, 9, 8)}, {"B heavier, yet short of +20 %", AbRepeats(20, 11, 20)}}) {
    CompareOptions busy;
    busy.sequential["b"] = s;
    c = Compare(base, now, busy);
    EXPECT_EQ(c.points[1].decision.change, Change::kSlower) << what << ": " << c.points[1].decision.reason;
  }
  for (const auto& [what, s] : std::vector<std::pair<std::string, SequentialPoint>>{
           {"one side", AbRepeats(20, 0, 20)}, {"stored baseline", Repeats(20, 20, 0)}}) {
    CompareOptions busy;
    busy.sequential["b"] = s;
    c = Compare(base, now, busy);
    EXPECT_EQ(c.points[1].decision.change, Change::kInconclusive) << what << ": " << c.points[1].decision.reason;
    EXPECT_EQ(c.outcome, Outcome::kInconclusive) << what;
  }
  EXPECT_EQ(DisturbedCounts(AbRepeats(20, 10, 12)), "A: 10 of 20, B: 12 of 20 judged repeats disturbed");
}

TEST(CompareTest, FailsClosed) {
  // A point on one side only.
  Comparison c = Compare(File({{"a", 100}, {"b", 50}}, 6, 1), File({{"a", 100}}, 6, 2));
  EXPECT_EQ(c.outcome, Outcome::kInconclusive);
  EXPECT_EQ(c.ExitCode(), 3);
  EXPECT_EQ(c.points[1].problem, "only in the baseline");
  // Too few repeats.
  c = Compare(File({{"a", 100}}, 2, 1), File({{"a", 100}}, 2, 2));
  EXPECT_EQ(c.outcome, Outcome::kInconclusive);
  // A file that ended early.
  ResultFile partial = File({{"a", 100}}, 6, 2);
  partial.trailer.status = result::RunStatus::kPartial;
  partial.trailer.failure = "rank 3 timed out";
  c = Compare(File({{"a", 100}}, 6, 1), partial);
  EXPECT_EQ(c.outcome, Outcome::kInconclusive);
  ASSERT_EQ(c.problems.size(), 1u);
  EXPECT_NE(c.problems[0].find("rank 3 timed out"), std::string::npos);
  // Nothing at all.
  EXPECT_EQ(Compare(ResultFile{}, ResultFile{}).outcome, Outcome::kInconclusive);
}

TEST(CompareTest, WrongResultFailsWhateverTheTime) {
  ResultFile now = File({{"a", 100}}, 6, 2);
  now.points[3].correct = false;
  Comparison c = Compare(File({{"a", 100}}, 6, 1), now);
  EXPECT_EQ(c.outcome, Outcome::kRegression);
  EXPECT_TRUE(c.points[0].wrong_result);
}

TEST(CompareTest, EnvironmentDriftIsIncomparableUnlessAllowed) {
  json env = Env();
  env["variables"]["NCCL_ALGO"] = "Tree";
  env["host"] = "runner-7";  // a different runner of the same type is not drift
  ResultFile base = File({{"a", 100}}, 6, 1), now = File({{"a", 100}}, 6, 2, env);
  Comparison c = Compare(base, now);
  EXPECT_EQ(c.outcome, Outcome::kIncomparable);
  ASSERT_EQ(c.environment.size(), 1u);
  EXPECT_EQ(c.environment[0].key, "variables.NCCL_ALGO");
  EXPECT_EQ(c.environment[0].now, "Tree");
  CompareOptions allow;
  allow.allow_env_drift = true;
  EXPECT_EQ(Compare(base, now, allow).outcome, Outcome::kPass);

  json newer = Env();
  newer["backends"]["gloo"]["version"] = "0.0~git20240101";
  auto diffs = TimingRelevantDifferences(Env(), newer);
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].key, "backends.gloo.version");
}

// Halt polling or a frequency governor changed between the runs is drift; a file from before cpu_power was
// recorded is compared as before.
TEST(CompareTest, HowTheCpusIdleIsTimingRelevantWhenBothSidesRecordIt) {
  json base = Env(), now = Env();
  base["cpu_power"] = {{"idle_driver", "haltpoll"},
                       {"guest_halt_poll_ns", 0},
                       {"idle_states_disabled", json::array()},
                       {"frequency_governor", ""}};
  now["cpu_power"] = base["cpu_power"];
  EXPECT_TRUE(TimingRelevantDifferences(base, now).empty());
  now["cpu_power"]["guest_halt_poll_ns"] = 200000;
  auto diffs = TimingRelevantDifferences(base, now);
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].key, "cpu_power.guest_halt_poll_ns");
  EXPECT_TRUE(TimingRelevantDifferences(Env(), now).empty()) << "an older baseline without cpu_power";
}

// A CPU limit set or changed between the runs (a container's) is drift; a file from before it was recorded is
// compared as before.
TEST(CompareTest, ACpuQuotaIsTimingRelevantWhenBothSidesRecordIt) {
  json base = Env(), now = Env();
  base["cpu_quota"] = nullptr;
  now["cpu_quota"] = nullptr;
  EXPECT_TRUE(TimingRelevantDifferences(base, now).empty());
  now["cpu_quota"] = 0.5;
  auto diffs = TimingRelevantDifferences(base, now);
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].key, "cpu_quota");
  EXPECT_EQ(diffs[0].now, "0.5");
  EXPECT_TRUE(TimingRelevantDifferences(Env(), now).empty()) << "an older baseline without cpu_quota";
}

// schema_version 3 keeps a point's repeats in one record; older files hold one entry per repeat. Both count the
// same, and a file compared with itself is never slower.
TEST(CompareTest, RepeatsInOneRecordCountLikeRepeatedEntries) {
  ResultFile entries = File({{"a", 100}, {"b", 50}}, 6, 1);
  ResultFile records;
  records.header = entries.header;
  for (const char* id : {"a", "b"}) {
    std::vector<PointResult> repeats;
    for (const PointResult& p : entries.points) {
      if (p.id == id) repeats.push_back(p);
    }
    records.points.push_back(result::CombineRepeats(repeats));
  }
  ASSERT_EQ(records.points[0].repeat_p50_us.size(), 6u);
  const ResultFile now = File({{"a", 100}, {"b", 60}}, 6, 2);
  const Comparison from_entries = Compare(entries, now), from_records = Compare(records, now);
  ASSERT_EQ(from_records.points.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(from_records.points[i].base_us, from_entries.points[i].base_us);
    EXPECT_EQ(from_records.points[i].decision.change, from_entries.points[i].decision.change);
  }
  EXPECT_EQ(from_records.outcome, Outcome::kRegression);
  for (const ResultFile* f : std::vector<const ResultFile*>{&entries, &records, &now}) {
    const Comparison self = Compare(*f, *f);
    EXPECT_EQ(self.outcome, Outcome::kPass);
    for (const PointComparison& p : self.points) EXPECT_NE(p.decision.change, Change::kSlower) << p.id;
  }
}

// gate --ab sets variables on purpose: those differences are listed but do not make the sides incomparable;
// any other still does.
TEST(CompareTest, VariedVariablesAreNotDrift) {
  json a = Env(), b = Env();
  a["variables"]["NCCL_ALGO"] = "Ring";
  b["variables"]["NCCL_ALGO"] = "Tree";
  CompareOptions ab;
  ab.varied_variables = {"NCCL_ALGO"};
  Comparison c = Compare(File({{"a", 100}}, 6, 1, a), File({{"a", 100}}, 6, 2, b), ab);
  EXPECT_EQ(c.outcome, Outcome::kPass);
  ASSERT_EQ(c.environment.size(), 1u);
  b["variables"]["OMP_NUM_THREADS"] = "4";
  EXPECT_EQ(Compare(File({{"a", 100}}, 6, 1, a), File({{"a", 100}}, 6, 2, b), ab).outcome, Outcome::kIncomparable);
}

// A small message may get a wider floor: the same 8 % slowdown fails at 64 KiB and passes at 400 B under
// --min-effect-below 4K=0.1.
TEST(CompareTest, FloorsBySize) {
  auto sized = [](ResultFile f) {
    for (PointResult& p : f.points) p.point.bytes = p.id == "small" ? 400 : 65536;
    return f;
  };
  CompareOptions o;
  ASSERT_TRUE(SetMinEffects(0.05, {"4K=0.1"}, &o).ok());
  EXPECT_DOUBLE_EQ(MinEffectFor(o, 400), 0.1);
  EXPECT_DOUBLE_EQ(MinEffectFor(o, 4096), 0.05);  // "below": 4 KiB itself uses the default
  Comparison c = Compare(sized(File({{"small", 100}, {"large", 100}}, 12, 1)),
                         sized(File({{"small", 108}, {"large", 108}}, 12, 2)), o);
  ASSERT_EQ(c.points.size(), 2u);
  for (const PointComparison& p : c.points) {
    EXPECT_EQ(p.decision.change, p.id == "small" ? Change::kUnchanged : Change::kSlower)
        << p.id << ": " << p.decision.reason;
  }
  for (const char* bad : {"4K", "4K=2", "4K=x", "lots=0.1", "4K=0.1,"}) {
    CompareOptions b;
    Status s = SetMinEffects(0.05, {bad}, &b);
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.message().find(bad), std::string::npos) << s.message();
  }
  CompareOptions twice;
  EXPECT_FALSE(SetMinEffects(0.05, {"4K=0.1", "4096=0.2"}, &twice).ok());
  EXPECT_FALSE(SetMinEffects(1.5, {}, &twice).ok());
}

TEST(CheckComparableTest, RefusesAMedianThatIsNotAFiniteTimeAboveZero) {
  EXPECT_TRUE(CheckComparable(File({{"a", 100}}, 1, 1), "r.json").ok());
  struct Case {
    double p50;
    std::string shown;
  };
  for (const Case& c : {Case{-1.5, "-1.5"}, Case{0, "0"}, Case{HUGE_VAL, "inf"}, Case{NAN, "nan"}}) {
    ResultFile f = File({{"a", 100}, {"b", 50}}, 1, 1);
    f.points[1].time_us.p50 = c.p50;
    EXPECT_EQ(CheckComparable(f, "r.json").message(),
              "r.json: point b: time_us.p50 is " + c.shown + " (accepted: a finite time > 0 us)");
  }
  // Per-repeat medians (schema_version 3) name the repeat.
  ResultFile f;
  f.points.push_back(result::CombineRepeats(File({{"a", 100}}, 6, 1).points));
  f.points[0].repeat_p50_us[3] = -102.5;
  EXPECT_EQ(CheckComparable(f, "r.json").message(),
            "r.json: point a: repeats.p50_us[3] is -102.5 (accepted: a finite time > 0 us)");
}

TEST(CheckComparableTest, RefusesAPointIdGivenTwiceInSchemaVersion3) {
  ResultFile f = File({{"a", 100}, {"b", 50}}, 2, 1);  // a, b, a, b
  EXPECT_EQ(CheckComparable(f, "r.json").message(),
            "r.json: point a: the id is given twice (points[0] and points[2]; accepted: each id once, its repeats in "
            "its own `repeats`)");
  f.header.schema_version = 2;  // before `repeats`, one entry per repeat
  EXPECT_TRUE(CheckComparable(f, "r.json").ok());
  f.points[0].id = "a\nb";  // an id from a file stays on one line
  f.points[2].id = "a\nb";
  f.header.schema_version = 3;
  EXPECT_NE(CheckComparable(f, "r.json").message().find("point a\\x0ab: the id"), std::string::npos);
}

// Through real files: what LoadComparable refuses at the JSON level (a key twice, 1e400) and after reading.
TEST(CheckComparableTest, LoadComparableRefusesFilesThatCannotBeJudged) {
  std::ifstream in("reports/testdata/real_sweep_g1-4.json");
  const json real = json::parse(in);
  ASSERT_GE(real["points"].size(), 2u);
  TempDir dir("compare-");
  auto load = [&dir](const std::string& text) {
    const std::string path = dir.path() + "/r.json";
    std::ofstream(path) << text;
    return LoadComparable(path);
  };
  ASSERT_TRUE(load(real.dump()).ok()) << load(real.dump()).status().message();
  // A key given twice: nlohmann would keep the last silently.
  std::string text = real.dump();
  const std::string p50 = "\"p50\":" + real["points"][1]["time_us"]["p50"].dump();
  const size_t at = text.find(p50, text.find(real["points"][1]["id"].get<std::string>()));
  ASSERT_NE(at, std::string::npos);
  text.insert(at, "\"p50\":-5,");
  EXPECT_EQ(load(text).status().message(),
            dir.path() +
                "/r.json: points[1].time_us.p50: the key is given twice in one object (accepted: each key "
                "once)");
  // A median past double's range, and one below zero.
  text = real.dump();
  text.replace(text.find(p50, text.find(real["points"][1]["id"].get<std::string>())), p50.size(), "\"p50\":1e400");
  EXPECT_NE(load(text).status().message().find("number overflow parsing '1e400'"), std::string::npos);
  json negative = real;
  negative["points"][1]["time_us"]["p50"] = -33.5;
  EXPECT_EQ(load(negative.dump()).status().message(), dir.path() + "/r.json: point " +
                                                          real["points"][1]["id"].get<std::string>() +
                                                          ": time_us.p50 is -33.5 (accepted: a finite time > 0 us)");
}

}  // namespace
}  // namespace commbench::gate
