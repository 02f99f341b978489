// The sequential gate's bookkeeping on result files built here: looks fall where the schedule says, a clearly
// slower point stops at an early look while a noisy unchanged one goes on, each point's boundary and disturbed
// repeats reach the final comparison and its JSON, and --update-baseline's schedule looks once, at the end.
#include "lib/gate/sequential_gate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "lib/gate/outputs.h"

namespace commbench::gate {
namespace {

using result::PointResult;
using result::ResultFile;

// `repeats` one-repeat entries per point id (as files before schema 3 keep them), p50 = median x noise.
ResultFile File(const std::map<std::string, double>& medians, int repeats, double cv, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0, cv);
  ResultFile f;
  f.header.environment.fingerprint = {
      {"host", "runner-1"}, {"cores_online", 2}, {"variables", nlohmann::json::object()}};
  for (int r = 0; r < repeats; ++r) {
    for (const auto& [id, m] : medians) {
      PointResult p;
      p.id = id;
      p.point.bytes = 65536;
      p.time_us.p50 = m * std::exp(noise(rng));
      f.points.push_back(p);
    }
  }
  return f;
}

TEST(SequentialGateTest, LooksFallOnTheSchedule) {
  LookSchedule s{40, 10, 10, true, true};
  EXPECT_FALSE(IsLook(s, 5));
  EXPECT_TRUE(IsLook(s, 10));
  EXPECT_FALSE(IsLook(s, 15));
  EXPECT_TRUE(IsLook(s, 30));
  EXPECT_TRUE(IsLook(s, 40));
  EXPECT_TRUE(IsLook(s, 41));  // past the plan (a stored baseline with more): every round is the last look
  s.stop_early = false;
  EXPECT_FALSE(IsLook(s, 10));
  EXPECT_TRUE(IsLook(s, 40));
}

TEST(SequentialGateTest, AClearSlowdownStopsEarlyAndANoisyPointGoesOn) {
  CompareOptions options;
  SequentialGate gate(options, LookSchedule{60, 10, 10, true, true});
  // "slow": 30 % slower at 2 % noise; "noisy": unchanged at 15 % noise (it cannot be decided at 20 a side).
  for (int n : {10, 20}) {
    const ResultFile a = File({{"noisy", 100}, {"slow", 100}}, n, 0.02, 1);
    ResultFile b = File({{"noisy", 100}, {"slow", 130}}, n, 0.02, 2);
    for (PointResult& p : b.points) {
      if (p.id == "noisy") p.time_us.p50 *= std::exp(0.15 * std::sin(13.0 * (&p - &b.points[0])));
    }
    gate.Look(a, b);
  }
  EXPECT_TRUE(gate.Decided("slow"));
  EXPECT_FALSE(gate.Decided("noisy"));
  // Every repeat is recorded; a quiet one stays quiet, a disturbed one is named, re-run or judged.
  gate.NoteRepeat("noisy", {"B", 2, false, false, 0.01, 0.02, "", 4});
  gate.NoteRepeat("noisy", {"B", 3, true, true, 0.40, 0, "outside processes took 40% of the ranks' CPUs"});
  gate.NoteRepeat("noisy", {"B", 9, true, false, 0, 0.2, "the ranks waited for a CPU 20% of an operation's time"});
  EXPECT_EQ(gate.Disturbed("noisy"), 2);

  SequentialRun run;
  run.rounds = 20;
  run.planned_repeats = 60;
  run.stopped_because = "the budget of 10 s was spent";
  const Comparison c = gate.Final(File({{"noisy", 100}, {"slow", 100}}, 20, 0.02, 1),
                                  File({{"noisy", 100}, {"slow", 130}}, 20, 0.02, 2), run);
  ASSERT_EQ(c.points.size(), 2u);
  const PointComparison& slow = c.points[1];
  ASSERT_TRUE(slow.sequential.has_value());
  EXPECT_EQ(slow.decision.change, Change::kSlower) << slow.decision.reason;
  EXPECT_TRUE(slow.sequential->stopped);
  // At 10 of 60 a side, O'Brien-Fleming spends about 3e-10, beyond any p 10 repeats a side can give: decided at
  // the second look.
  EXPECT_EQ(slow.sequential->looks, 2);
  EXPECT_LT(slow.sequential->boundary_p, 0.01);  // an early look spends less than alpha
  EXPECT_GT(slow.sequential->boundary_p, 0);
  const PointComparison& noisy = c.points[0];
  EXPECT_EQ(noisy.sequential->looks, 2);
  EXPECT_EQ(noisy.sequential->disturbed, 2);
  EXPECT_EQ(noisy.sequential->replaced, 1);
  EXPECT_EQ(c.ExitCode(), 1);

  const nlohmann::json j = ComparisonToJson(c, "A", "B");
  EXPECT_EQ(j["schema_version"], 3);
  EXPECT_EQ(j["options"]["sequential"]["rounds"], 20);
  EXPECT_EQ(j["points"][0]["sequential"]["disturbed"], 2);
  EXPECT_EQ(j["points"][0]["sequential"]["disturbances"],
            (nlohmann::json{"B repeat 3: outside processes took 40% of the ranks' CPUs (re-run)",
                            "B repeat 9: the ranks waited for a CPU 20% of an operation's time (judged: the re-run "
                            "bound was reached)"}));
  const nlohmann::json& repeats = j["points"][0]["sequential"]["repeats"];
  ASSERT_EQ(repeats.size(), 3u);
  EXPECT_EQ(repeats[0]["disturbed"], false);
  EXPECT_EQ(repeats[0]["why"], "");
  EXPECT_EQ(repeats[0]["migrations"], 4);
  EXPECT_FALSE(repeats[1].contains("migrations"));  // not recorded: absent
  EXPECT_EQ(repeats[1]["side"], "B");
  EXPECT_EQ(repeats[1]["round"], 3);
  EXPECT_EQ(repeats[1]["disturbed"], true);
  EXPECT_EQ(repeats[1]["replaced"], true);
  EXPECT_DOUBLE_EQ(repeats[1]["outside_share"].get<double>(), 0.40);
  EXPECT_EQ(repeats[2]["replaced"], false);
  EXPECT_DOUBLE_EQ(repeats[2]["runqueue_share"].get<double>(), 0.2);
  EXPECT_TRUE(j["points"][1]["sequential"]["repeats"].empty());  // no repeat noted there
  const std::string md = ComparisonToMarkdown(c);
  EXPECT_NE(md.find("Sequential repeats: 20 rounds"), std::string::npos) << md;
  EXPECT_NE(md.find("2 disturbed repeats, 1 re-run"), std::string::npos) << md;
}

TEST(SequentialGateTest, UpdateBaselineLooksOnceAtTheEnd) {
  SequentialGate gate(CompareOptions{}, LookSchedule{20, 10, 10, true, false});
  gate.Look(File({{"slow", 100}}, 20, 0.02, 1), File({{"slow", 130}}, 20, 0.02, 2));
  EXPECT_FALSE(gate.Decided("slow"));  // nothing stops early: every repeat runs
  const Comparison c = gate.Final(File({{"slow", 100}}, 20, 0.02, 1), File({{"slow", 130}}, 20, 0.02, 2), {});
  EXPECT_EQ(c.points[0].sequential->looks, 1);
  EXPECT_NEAR(c.points[0].sequential->boundary_p, 0.01, 1e-6);  // one look at the plan's end: the fixed test
  EXPECT_EQ(c.points[0].decision.change, Change::kSlower);
}

TEST(SequentialGateTest, AnAutoFloorIsProjectedToTheJobsLastRoundsThenTakenAtItsRepeats) {
  CompareOptions options;
  options.auto_floor = true;
  SequentialGate gate(options, LookSchedule{160, 40, 20, true, true});
  // 8 % launches, no change: at 40 a side the floor of 40 would say "unchanged"; projected to 160 it cannot yet.
  const ResultFile a = File({{"p", 100}}, 40, 0.08, 5), b = File({{"p", 100}}, 40, 0.08, 6);
  gate.Look(a, b);
  EXPECT_FALSE(gate.Decided("p"));
  // The job ended there (its budget spent): the point is judged at its own repeats' resolution.
  const Comparison c = gate.Final(a, b, SequentialRun{});
  ASSERT_EQ(c.points.size(), 1u);
  EXPECT_EQ(c.points[0].sequential->final_now, 40);
  EXPECT_EQ(c.points[0].decision.change, Change::kUnchanged) << c.points[0].decision.reason;
  EXPECT_GT(c.points[0].decision.floor, 0.05);
  EXPECT_DOUBLE_EQ(ComparisonToJson(c, "a", "b")["points"][0]["min_effect"], c.points[0].decision.floor);
}

}  // namespace
}  // namespace commbench::gate
