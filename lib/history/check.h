// `commbench history check`: the history's series (one per runner fingerprint and point id, in run order), each
// run's independent repeats, the change points found in each (changepoint.h) with their size, interval and
// p-value, the segments' levels and noise bands, and the verdict: a slowdown beyond the floor that starts in
// the last K runs is a regression. Outputs in the shapes compare uses (JSON, JUnit, markdown, text).
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

struct CheckOptions {
  ChangePointOptions change_points;
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

enum class SeriesVerdict { kOk, kRegression, kTooShort, kDisturbed };

struct SeriesCheck {
  Series series;
  std::vector<Change> changes;
  std::vector<Level> levels;
  SeriesVerdict verdict = SeriesVerdict::kOk;
};

struct CheckResult {
  std::string dir;
  CheckOptions options;
  std::vector<SeriesCheck> series;
  // 1 when a series regressed, else 3 when any (or no series at all) is too short or its regression disturbed,
  // else 0.
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
