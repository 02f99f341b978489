#include "lib/gate/busy_runner.h"

#include <gtest/gtest.h>

#include <cmath>

namespace commbench::gate {
namespace {

RepeatRecord Repeat(const std::string& side, bool disturbed, double outside, double wait, bool replaced = false) {
  RepeatRecord r;
  r.side = side;
  r.disturbed = disturbed;
  r.replaced = replaced;
  r.outside_share = outside;
  r.runqueue_share = wait;
  r.why = disturbed ? "outside processes took some of the ranks' CPUs" : "";
  return r;
}

// `n` repeats of each --ab side; B's first `loaded` disturbed at `outside` (and a run-queue wait of `wait`), the
// rest quiet with the wait the ranks make on their own (0.18, as a pinned Gloo rank's I/O thread makes here).
SequentialPoint OneSided(int n, int loaded, double outside, double wait = 0.18) {
  SequentialPoint s;
  for (int i = 0; i < n; ++i) {
    s.repeats.push_back(Repeat("A", false, 0.01, 0.18));
    s.repeats.push_back(i < loaded ? Repeat("B", true, outside, wait) : Repeat("B", false, 0.02, 0.18));
  }
  return s;
}

Decision Judged(Change change, double lo, double hi, double floor = 0.05) {
  Decision d;
  d.change = change;
  d.ratio = std::sqrt(lo * hi);
  d.ratio_lo = lo;
  d.ratio_hi = hi;
  d.floor = floor;
  d.reason = "as decided";
  return d;
}

// A side's bound is its most stretched judged repeat: 1 / (1 - outside share), or the run-queue wait beyond the
// quiet repeats' where outside processes witness it; a re-run repeat is not judged; a disturbed repeat that no share
// explains (a pinned rank moved) bounds nothing.
TEST(BusyRunnerTest, EachSideIsBoundByItsMostStretchedJudgedRepeat) {
  SequentialPoint s = OneSided(10, 3, 0.20);
  LoadStretch k = MostLoadStretch(s);
  EXPECT_NEAR(k.now, 1.25, 1e-9);
  EXPECT_NEAR(k.base, 1 / 0.99, 1e-9);

  s = OneSided(10, 3, 0.12, 0.50);  // the wait beyond the quiet 0.18 (0.32) is the larger share
  EXPECT_NEAR(MostLoadStretch(s).now, 1 / 0.68, 1e-9);
  s = OneSided(10, 3, 0.04, 0.50);  // outside processes under the witness share: the wait is the ranks' own
  s.repeats[1].why = "rank 0, pinned to CPU 0, moved between CPUs 1 time";
  EXPECT_TRUE(std::isinf(MostLoadStretch(s).now)) << "the moved rank's repeat is disturbed with no share to bound it";

  s = OneSided(10, 0, 0);
  s.repeats.push_back(Repeat("B", true, 0.8, 0, /*replaced=*/true));
  EXPECT_NEAR(MostLoadStretch(s).now, 1 / 0.98, 1e-9) << "a re-run repeat was not judged";

  SequentialPoint stored;  // a stored baseline: side "new" only, the baseline unbounded by nothing
  stored.repeats = {Repeat("new", true, 0.95, 0)};
  k = MostLoadStretch(stored);
  EXPECT_EQ(k.base, 1);
  EXPECT_NEAR(k.now, 10, 1e-9) << "a share past 0.9 stretches 10x at most";
}

// A load the --ab sides shared cancels in their ratio: what is left is how much more one side's typical repeat
// carried (mean log stretch); disturbances no share measures count alike where the sides had alike shares of them.
TEST(BusyRunnerTest, TheSidesTypicalLoadsShiftTheRatioByTheirDifference) {
  SequentialPoint s = OneSided(20, 12, 0.20);
  LoadStretch k = TypicalLoadShift(s);
  EXPECT_EQ(k.base, 1);
  EXPECT_NEAR(k.now, std::exp((12 * std::log(1.25) + 8 * std::log(1 / 0.98)) / 20 - std::log(1 / 0.99)), 1e-9);

  for (RepeatRecord& r : s.repeats) r = Repeat(r.side, true, r.side == "A" ? 0.30 : 0.25, 0.18);
  k = TypicalLoadShift(s);
  EXPECT_NEAR(k.base, 0.75 / 0.70, 1e-9) << "A carried more";
  EXPECT_EQ(k.now, 1);

  s = OneSided(20, 0, 0);
  s.repeats[0] = Repeat("A", true, 0.0, 0.0);  // one moved rank a side: alike, left out
  s.repeats[1] = Repeat("B", true, 0.0, 0.0);
  k = TypicalLoadShift(s);
  EXPECT_LT(k.now, 1.02);
  EXPECT_LT(k.base, 1.02);
  for (int i = 0; i < 4; ++i) s.repeats[static_cast<size_t>(2 * i + 1)] = Repeat("B", true, 0.0, 0.0);
  EXPECT_TRUE(std::isinf(TypicalLoadShift(s).now)) << "4 of 20 against 1 of 20: unlike, unmeasured";

  SequentialPoint stored;
  stored.repeats = {Repeat("new", true, 0.2, 0)};
  EXPECT_TRUE(std::isinf(TypicalLoadShift(stored).now)) << "a stored baseline has no A to share a load with";
}

TEST(BusyRunnerTest, AVerdictOutlastsALoadThatCouldNotMakeIt) {
  const LoadStretch b_loaded{1.0, 1.25};
  EXPECT_TRUE(OutlastsLoad(Judged(Change::kSlower, 1.30, 1.45), b_loaded));
  EXPECT_FALSE(OutlastsLoad(Judged(Change::kSlower, 1.20, 1.45), b_loaded)) << "B's load alone could be +25 %";
  EXPECT_TRUE(OutlastsLoad(Judged(Change::kFaster, 0.70, 0.90), b_loaded))
      << "B's load hides a speed-up, never makes one";
  EXPECT_FALSE(OutlastsLoad(Judged(Change::kFaster, 0.70, 0.90), {1.25, 1.0})) << "A's load could make B look faster";
  EXPECT_FALSE(OutlastsLoad(Judged(Change::kUnchanged, 0.98, 1.02), b_loaded)) << "B's load could hide +20 %";
  EXPECT_TRUE(OutlastsLoad(Judged(Change::kUnchanged, 0.97, 1.02), {1.0, 1.01}));
  EXPECT_FALSE(OutlastsLoad(Judged(Change::kInconclusive, 1.5, 2), {1, 1}));
}

// Fires: a one-sided load that could make the change voids it. Stays quiet: under the share of disturbed repeats.
// Confirmed: a change larger than the load could make stands and says so. Shared: a load on both sides alike, steady
// or one that came and went.
TEST(BusyRunnerTest, OnlyALoadThatCouldExplainAVerdictVoidsIt) {
  Decision d = Judged(Change::kSlower, 1.10, 1.22);
  JudgeOnBusyRunner(OneSided(20, 12, 0.20), &d);
  EXPECT_EQ(d.change, Change::kInconclusive);
  EXPECT_EQ(d.reason,
            "not judged, the runner was busy (B: 12 of 20 judged repeats disturbed, more than 10 %; its load could "
            "make A +1.0% and B +25.0% slower at most, B's typical load could make it +14.1% slower than A): as "
            "decided");

  d = Judged(Change::kSlower, 1.10, 1.22);
  JudgeOnBusyRunner(OneSided(20, 2, 0.20), &d);
  EXPECT_EQ(d.change, Change::kSlower) << "2 of 20 is at the share, not past it";
  EXPECT_EQ(d.reason, "as decided");

  d = Judged(Change::kSlower, 26.0, 31.0);  // B's ranks slept; the neighbour took more of B's CPUs
  JudgeOnBusyRunner(OneSided(20, 20, 0.60), &d);
  EXPECT_EQ(d.change, Change::kSlower) << d.reason;
  EXPECT_NE(d.reason.find("; judged beyond what the sides' difference in load could make (A: 0 of 20, B: 20 of 20 "
                          "judged repeats disturbed; B's typical load could make it +147.5% slower than A)"),
            std::string::npos)
      << d.reason;

  d = Judged(Change::kSlower, 26.0, 31.0);
  SequentialPoint moved = OneSided(20, 20, 0.0, 0.0);
  JudgeOnBusyRunner(moved, &d);
  EXPECT_EQ(d.change, Change::kInconclusive) << "a load no share bounds could be any size";
  EXPECT_NE(d.reason.find("B any change slower at most"), std::string::npos) << d.reason;

  SequentialPoint shared;  // a neighbour through the whole job, both sides alike
  for (int i = 0; i < 20; ++i) {
    shared.repeats.push_back(Repeat("A", true, 0.20, 0.18));
    shared.repeats.push_back(Repeat("B", true, i % 2 ? 0.19 : 0.21, 0.18));
  }
  d = Judged(Change::kUnchanged, 0.98, 1.02);
  JudgeOnBusyRunner(shared, &d);
  EXPECT_EQ(d.change, Change::kUnchanged) << d.reason;
  EXPECT_NE(d.reason.find("judged under a load both sides shared (A: 20 of 20, B: 20 of 20 judged repeats disturbed; "
                          "B's typical load could make it +0.0% slower than A)"),
            std::string::npos)
      << d.reason;

  SequentialPoint came_and_went = OneSided(20, 0, 0);  // a burst over a third of the job, on both sides alike
  for (int i = 0; i < 7; ++i) {
    came_and_went.repeats[static_cast<size_t>(2 * i)] = Repeat("A", true, 0.30, 0.18);
    came_and_went.repeats[static_cast<size_t>(2 * i + 1)] = Repeat("B", true, 0.30, 0.18);
  }
  d = Judged(Change::kUnchanged, 0.98, 1.02);
  JudgeOnBusyRunner(came_and_went, &d);
  EXPECT_EQ(d.change, Change::kUnchanged) << d.reason;
  d = Judged(Change::kUnchanged, 0.98, 1.02);
  JudgeOnBusyRunner(OneSided(20, 7, 0.30), &d);
  EXPECT_EQ(d.change, Change::kInconclusive) << "the same burst on B alone could hide +13.6 %: " << d.reason;

  SequentialPoint stored;
  for (int i = 0; i < 10; ++i) stored.repeats.push_back(Repeat("new", true, 0.3, 0));
  d = Judged(Change::kSlower, 1.2, 1.3);
  JudgeOnBusyRunner(stored, &d);
  EXPECT_NE(d.reason.find("its load could make new +42.9% slower at most"), std::string::npos) << d.reason;
}

}  // namespace
}  // namespace commbench::gate
