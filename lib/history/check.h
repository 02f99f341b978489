// `commbench history check`: the history's series (one per runner fingerprint and point id, in run order), each
// run's independent repeats, the change points found in each (changepoint.h) with their size, interval and
// p-value, the segments' levels and noise bands, and the verdict: a slowdown beyond the floor that starts in
// the last K runs is a regression; one beyond the floor and one run's spread that the runs cannot tell yet is
// "too few runs to tell" (exit 3), never a pass. Each series says its resolution: the smallest step it can find
// with the runs it has, and the runs after a step of the floor's size it needs. Outputs in the shapes compare uses
// (JSON, JUnit, markdown, text).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "lib/core/status.h"
#include "lib/gate/disturbance.h"
#include "lib/history/changepoint.h"
#include "lib/history/store.h"
#include "lib/model/point.h"

namespace commbench::history {

// Runs read per runner fingerprint by default: bounded work whatever the history's age (docs/history.md, "Window").
inline constexpr int kDefaultWindow = 200;

// The check's change-point options: Student's t decides splits that too few runs hold for the permutation test.
inline ChangePointOptions CheckChangePointOptions() {
  ChangePointOptions o;
  o.student_t_when_short = true;
  return o;
}

// The most runs after a step the check looks ahead for (what it needs beyond: "more than" this).
inline constexpr int kMaxRunsAhead = 1000;

struct CheckOptions {
  ChangePointOptions change_points = CheckChangePointOptions();
  double min_effect = 0.05;     // a slowdown smaller than this is reported, never a regression
  int last = 5;                 // K: a slowdown starting in the last K runs of a series fails the check
  int min_runs = 8;             // a series shorter than this is too short to say (exit 3)
  int window = kDefaultWindow;  // only the last N runs of each runner are read (0: all of them)
};

struct Series {
  std::string fingerprint, runner, point_id;
  Point point;
  std::vector<RunEntry> runs;                  // the history's runs holding this point, by time (then filing)
  std::vector<std::vector<double>> repeats;    // each run's per-repeat medians (us)
  std::vector<double> values;                  // each run's median of them
  std::vector<gate::Disturbance> disturbance;  // each run's: measured while something else held the ranks' CPUs?
};

struct Change {
  int index = 0;                   // the first run of the new level
  int first_lo = 0, first_hi = 0;  // the runs it may start at (changepoint.h: LocateChange)
  std::string run_id, commit, time;
  std::string good_commit, bad_commit;           // what to bisect: run first_lo - 1's commit, run first_hi's
  double before_us = 0, after_us = 0;            // the two adjacent segments' medians (of their repeats)
  double ratio = 0, ratio_lo = 0, ratio_hi = 0;  // after / before with its 95 % bootstrap interval
  double p = 1;
  SplitTest test = SplitTest::kPermutation;  // which test found it
  bool slower = false;
  bool beyond_floor = false;  // |ratio - 1| >= min_effect
  bool recent = false;        // starts in the last K runs
  // Runs next to it (two each side) measured while something else held the ranks' CPUs: the change may be the
  // load, not the code, or be misplaced by it. A disturbed regression is not called one (exit 3, re-run).
  std::vector<int> disturbed_runs;
  std::string disturbed_why;  // the first such run's reason
};

struct Level {
  int begin = 0, end = 0;                                // runs [begin, end)
  double median_us = 0, band_lo_us = 0, band_hi_us = 0;  // median and its noise band (median -+ 2 x 1.4826 MAD)
};

// enum order is the JSON's and the outputs' only through Name().
enum class SeriesVerdict { kOk, kRegression, kTooShort, kDisturbed, kTooFewRuns };

// What the series can see: a new step is split from the runs since its last change point (the level), and needs
// at least min_segment runs after it. Sizes are Student's t's with 80 % power at the check's alpha, Bonferroni over
// the splits tried (docs/history.md, "What a history can see": measured against the real detector).
struct Resolution {
  double spread = 0;   // one run's relative spread (RunToRunSpread of the run medians)
  int level_runs = 0;  // runs since the last change point
  int runs_after = 0;  // min_segment: the fewest runs after a step that can show it
  // The smallest step it finds when the step starts runs_after runs from the end (infinite: the level has fewer
  // than 2 x min_segment runs), and the test that decides such a split.
  double detectable = 0;
  SplitTest test = SplitTest::kPermutation;
  int floor_runs_after = 0;  // runs after a step of the floor's size it needs to find it (0: more than kMaxRunsAhead)
};

// The last level's best split when the test cannot tell it yet although it is a recent slowdown beyond the floor
// and beyond the noise (twice its standard error at one run's spread): too few runs to tell (exit 3).
struct Unresolved {
  int index = 0;  // its first run
  std::string run_id, commit;
  double before_us = 0, after_us = 0, ratio = 0, p = 1;
  SplitTest test = SplitTest::kPermutation;
  int runs_needed = 0;  // the series' runs at which a step this size would be found (0: more than kMaxRunsAhead more)
};

struct SeriesCheck {
  Series series;
  std::vector<Change> changes;
  std::vector<Level> levels;
  SeriesVerdict verdict = SeriesVerdict::kOk;
  Resolution resolution;
  bool unresolved_step = false;  // `unresolved` holds one (verdict kTooFewRuns)
  Unresolved unresolved;
};

struct CheckResult {
  std::string dir;
  CheckOptions options;
  std::vector<SeriesCheck> series;
  // 1 when a series regressed, else 3 when any (or no series at all) is too short, holds a slowdown too few runs
  // can tell, or its regression is disturbed, else 0.
  int ExitCode() const;
};

// Every series of the history, its runs ordered by time, then filing order (runs whose file lacks a point are
// left out of that point's series). With `window` > 0 only the last `window` runs of each fingerprint are read.
StatusOr<std::vector<Series>> BuildSeries(const std::string& dir, const History& history, int window = 0);
SeriesCheck CheckSeries(const Series& s, const CheckOptions& options);
StatusOr<CheckResult> CheckHistory(const std::string& dir, const CheckOptions& options);

std::string Name(SeriesVerdict v);
nlohmann::json CheckToJson(const CheckResult& r);
std::string CheckToJunit(const CheckResult& r);
std::string CheckToMarkdown(const CheckResult& r);
std::string CheckToText(const CheckResult& r);

// InvalidArgument naming the flag and what it accepts for a value the check cannot use.
Status ValidateCheckOptions(const CheckOptions& c);

}  // namespace commbench::history
