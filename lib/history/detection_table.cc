// The history's detection table (docs/history.md, "What a history can see"): what `history check` answers (its
// real CheckSeries, default options) on short series with a planted step, by series length, runs after the step
// and step size, and on A/A series (no step). The noise: each given result file's per-repeat medians of each
// point over that point's median across the files, drawn a whole run at a time (a block bootstrap: a simulated
// run is one real run's repeats, so the run-to-run spread and the correlation inside a run are the measured ones);
// or, with --cv F, 30 synthetic runs of 5 normal repeats of spread F, drawn the same way.
// Each cell: the share of series that exit 1 (a slowdown found: every change counts as recent here, so that exit
// 1 means found whatever the step's age), 3 (too few runs to tell) and 0. A/A: exit 1 is a false alarm.
// Beside them the resolution the check states for such a split (Student's t, 80 % power, the series' own spread;
// the median over the A/A series).
//
// usage: detection_table [--series N] [--lengths 8,10,12,16,20,30] [--cv F] RESULT.json...
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "lib/gate/compare.h"
#include "lib/history/check.h"
#include "lib/history/recorded_runs.h"
#include "lib/stats/summary.h"

namespace {

using commbench::Median;

using namespace commbench::history;  // NOLINT: a developer tool over one library

Series Synthetic(const std::vector<std::vector<double>>& runs) {
  Series s;
  s.point_id = "simulated";
  for (size_t i = 0; i < runs.size(); ++i) {
    RunEntry e;
    e.id = "run" + std::to_string(i);
    e.commit = "c" + std::to_string(i);
    s.runs.push_back(e);
    s.repeats.push_back(runs[i]);
    s.values.push_back(Median(runs[i]));
    s.disturbance.push_back({});
  }
  return s;
}

struct Tally {
  int exit1 = 0, exit3 = 0, exit0 = 0, n = 0;
  std::string Cell() const {
    char b[64];
    std::snprintf(b, sizeof b, "%.0f / %.0f / %.0f", 100.0 * exit1 / n, 100.0 * exit3 / n, 100.0 * exit0 / n);
    return b;
  }
};

std::vector<int> Ints(const std::string& csv) {
  std::vector<int> v;
  std::stringstream in(csv);
  for (std::string x; std::getline(in, x, ',');) v.push_back(std::atoi(x.c_str()));
  return v;
}

}  // namespace

// Over 80 lines: a developer tool's flags, inputs and printed table, read top to bottom as one experiment.
int main(int argc, char** argv) {
  int series = 200;
  double cv = 0;
  std::vector<int> lengths = {8, 10, 12, 16, 20, 30};
  const std::vector<double> steps = {0.05, 0.10, 0.20, 0.50};
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--series" && i + 1 < argc)
      series = std::atoi(argv[++i]);
    else if (a == "--cv" && i + 1 < argc)
      cv = std::atof(argv[++i]);
    else if (a == "--lengths" && i + 1 < argc)
      lengths = Ints(argv[++i]);
    else
      files.push_back(a);
  }
  std::vector<std::vector<double>> dev;
  if (cv > 0) {
    std::mt19937_64 gen(7);
    std::normal_distribution<double> noise(1, cv);
    dev.assign(30, {});
    for (auto& r : dev) {
      for (int k = 0; k < 5; ++k) r.push_back(noise(gen));
    }
  } else {
    dev = commbench::history::RecordedDeviations(files, "detection_table");
  }
  if (dev.size() < 8) {
    std::fprintf(stderr, "detection_table: give result files with repeats (sweep --repeats R), 8 runs or more\n");
    return 2;
  }
  std::vector<double> medians;
  for (const auto& r : dev) medians.push_back(Median(r));
  std::sort(medians.begin(), medians.end());
  std::printf("noise: %zu runs from %zu files (%s); a run's median p5 %.3f, p95 %.3f; %d series per cell\n\n",
              dev.size(), files.size(), cv > 0 ? "synthetic" : "real", medians[medians.size() / 20],
              medians[medians.size() * 19 / 20], series);
  std::printf("| runs | runs after the step | smallest step it finds (stated, median) | A/A: exit 1 / 3 / 0 (%%) |");
  for (double s : steps) std::printf(" %.0f %%: exit 1 / 3 / 0 (%%) |", 100 * s);
  std::printf("\n|---|---|---|---|");
  for (size_t i = 0; i < steps.size(); ++i) std::printf("---|");
  std::printf("\n");
  std::mt19937_64 rng(20261202);
  std::uniform_int_distribution<size_t> pick(0, dev.size() - 1);
  const auto draw = [&](int n, int at, double step) {
    std::vector<std::vector<double>> v(n);
    for (int r = 0; r < n; ++r) {
      for (double d : dev[pick(rng)]) v[r].push_back(100 * d * (r >= at ? 1 + step : 1));
    }
    return v;
  };
  for (int n : lengths) {
    CheckOptions o;
    o.last = n;  // every change recent: exit 1 means found, whatever the step's age
    Tally aa;
    std::vector<double> spreads;
    for (int s = 0; s < series; ++s) {
      const SeriesCheck sc = CheckSeries(Synthetic(draw(n, n, 0)), o);
      const int rc = CheckResult{"", o, {sc}}.ExitCode();
      ++aa.n;
      aa.exit1 += rc == 1;
      aa.exit3 += rc == 3;
      aa.exit0 += rc == 0;
      spreads.push_back(sc.resolution.spread);
    }
    std::vector<int> afters = {3, 4, n / 2};
    afters.erase(std::unique(afters.begin(), afters.end()), afters.end());
    for (int after : afters) {
      if (after < 3 || n - after < 3) continue;
      const double spread = Median(spreads);
      const double stated = DetectableStep(n - after, after, spread, o.change_points);
      std::printf("| %d | %d | %.1f %% (spread %.1f %%) | %s |", n, after, 100 * stated, 100 * spread,
                  aa.Cell().c_str());
      for (double step : steps) {
        Tally t;
        for (int s = 0; s < series; ++s) {
          const SeriesCheck sc = CheckSeries(Synthetic(draw(n, n - after, step)), o);
          const int rc = CheckResult{"", o, {sc}}.ExitCode();
          ++t.n;
          t.exit1 += rc == 1;
          t.exit3 += rc == 3;
          t.exit0 += rc == 0;
        }
        std::printf(" %s |", t.Cell().c_str());
      }
      std::printf("\n");
      std::fflush(stdout);
    }
  }
  return 0;
}
