#include "lib/gate/one_more_run.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

namespace commbench::gate {
namespace {

TEST(StudentTest, KnownTailProbabilities) {
  EXPECT_NEAR(StudentTwoSidedP(2.015, 5), 0.100, 0.001);   // tables: t(0.95, 5) = 2.015
  EXPECT_NEAR(StudentTwoSidedP(3.499, 7), 0.010, 0.0005);  // t(0.995, 7) = 3.499
  EXPECT_NEAR(StudentTwoSidedP(1.96, 1e6), 0.05, 0.0005);  // the normal's
  EXPECT_DOUBLE_EQ(StudentTwoSidedP(0, 4), 1);
  EXPECT_NEAR(StudentQuantileTwoSided(0.01, 7), 3.499, 0.002);
  EXPECT_NEAR(StudentQuantileTwoSided(0.05, 30), 2.042, 0.002);
}

// `k` runs of main: each run's median drawn with a job-to-job spread `job` (log scale) about `level`.
std::vector<double> Runs(int k, double level, double job, std::mt19937_64* rng) {
  std::normal_distribution<double> offset(0, job);
  std::vector<double> runs;
  for (int i = 0; i < k; ++i) runs.push_back(level * std::exp(offset(*rng)));
  return runs;
}

// A job's `n` repeats: its own offset (the job-to-job spread), then a small spread within the job.
std::vector<double> Job(int n, double level, double job, std::mt19937_64* rng) {
  std::normal_distribution<double> offset(0, job), within(0, 0.01);
  const double mine = level * std::exp(offset(*rng));
  std::vector<double> repeats;
  for (int i = 0; i < n; ++i) repeats.push_back(mine * std::exp(within(*rng)));
  return repeats;
}

// This VM's runs of 1 MiB spread 18 % from run to run, a job's repeats far less: weighed repeat by repeat, such
// A/A jobs alarm often; judged as one more run, at most alpha of them do.
TEST(DecideAgainstRunsTest, FalseAlarmsStayAtAlphaWhateverTheRunToRunSpread) {
  for (double job : {0.02, 0.07, 0.18}) {
    std::mt19937_64 rng(11);
    int slower = 0, by_repeats = 0;
    const int trials = 4000, compared = 200;  // the repeat-by-repeat test bootstraps: fewer of it
    for (int t = 0; t < trials; ++t) {
      const std::vector<double> runs = Runs(8, 500, job, &rng), now = Job(40, 500, job, &rng);
      slower += DecideAgainstRuns(runs, now).change == Change::kSlower;
      if (t < compared) by_repeats += Decide(runs, now).change == Change::kSlower;
    }
    EXPECT_LE(slower, trials * 0.01 * 1.5) << "job-to-job spread " << job;
    if (job >= 0.07) {
      EXPECT_GT(by_repeats, compared * 0.05) << "the repeat-by-repeat test, spread " << job;
    }
    std::printf("job-to-job spread %.2f: as one more run %d of %d slower; repeat by repeat %d of %d\n", job, slower,
                trials, by_repeats, compared);
  }
}

// A stored baseline judged with its build's other jobs (gate --calibrate's): few jobs (3 or 5 with the
// baseline's), a job-to-job spread of 10 %, a repeat's of 12 %, and the gate looks after every 20 repeats up to
// 160 and stops at the first verdict. Looking again does not raise the false alarms past alpha by much: the job's
// own offset, not its repeats, moves the test, and it is there from the first look.
TEST(DecideAgainstRunsTest, LookingAfterEveryRoundOfRepeatsKeepsTheFalseAlarmsNearAlpha) {
  for (int k : {3, 5}) {
    std::mt19937_64 rng(21);
    std::normal_distribution<double> offset(0, 0.10), within(0, 0.12);
    int slower = 0;
    const int trials = 4000;
    for (int t = 0; t < trials; ++t) {
      const std::vector<double> runs = Runs(k, 500, 0.10, &rng);
      const double mine = 500 * std::exp(offset(rng));
      std::vector<double> now;
      for (int look = 20; look <= 160; look += 20) {
        while (static_cast<int>(now.size()) < look) now.push_back(mine * std::exp(within(rng)));
        const Change c = DecideAgainstRuns(runs, now).change;
        if (c == Change::kSlower) ++slower;
        if (c != Change::kInconclusive) break;
      }
    }
    EXPECT_LE(slower, trials * 0.01) << k << " jobs";  // only "slower" fails a gate: alpha / 2 at one look
    std::printf("%d jobs, 8 looks: %d of %d A/A series slower\n", k, slower, trials);
  }
}

TEST(DecideAgainstRunsTest, DetectableIsWhatTheDecisionReports) {
  std::mt19937_64 rng(5);
  const std::vector<double> runs = Runs(5, 500, 0.03, &rng);
  EXPECT_DOUBLE_EQ(DetectableAgainstRuns(runs, {}), DecideAgainstRuns(runs, Job(10, 500, 0, &rng)).detectable);
  EXPECT_TRUE(std::isinf(DetectableAgainstRuns({500, 510}, {})));
}

TEST(DecideAgainstRunsTest, FindsAChangeThatStandsOutOfQuietRuns) {
  std::mt19937_64 rng(3);
  const Decision d = DecideAgainstRuns(Runs(8, 500, 0.01, &rng), Job(40, 600, 0, &rng));
  EXPECT_EQ(d.change, Change::kSlower) << d.reason;
  EXPECT_NEAR(d.ratio, 1.2, 0.02);
  EXPECT_NE(d.reason.find("over 8 runs"), std::string::npos) << d.reason;
  const Decision faster = DecideAgainstRuns(Runs(8, 500, 0.01, &rng), Job(40, 400, 0, &rng));
  EXPECT_EQ(faster.change, Change::kFaster) << faster.reason;
}

TEST(DecideAgainstRunsTest, QuietRunsAndAQuietJobAreUnchanged) {
  std::mt19937_64 rng(5);
  const Decision d = DecideAgainstRuns(Runs(12, 500, 0.005, &rng), Job(40, 500, 0.005, &rng));
  EXPECT_EQ(d.change, Change::kUnchanged) << d.reason;
}

TEST(DecideAgainstRunsTest, RunsThatSpreadAreSaidSoNotJudged) {
  std::mt19937_64 rng(7);
  const Decision d = DecideAgainstRuns(Runs(8, 500, 0.18, &rng), Job(40, 550, 0, &rng));  // 10 % slower
  EXPECT_EQ(d.change, Change::kInconclusive) << d.reason;
  EXPECT_EQ(d.reason.rfind("the runs of main spread too much: 8 of them could only detect ", 0), 0u) << d.reason;
  EXPECT_GT(d.detectable, 0.5);
}

TEST(DecideAgainstRunsTest, TooFewRunsOrNoRepeats) {
  EXPECT_EQ(DecideAgainstRuns({500, 510}, {600}).change, Change::kInconclusive);
  EXPECT_EQ(DecideAgainstRuns({500, 510, 505}, {}).reason, "no repeats on the new side");
}

}  // namespace
}  // namespace commbench::gate
