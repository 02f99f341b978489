// The simulated suite (docs/history.md): detection and false-alarm rates of history check's change points per
// step size, on series whose noise is resampled from real runs. The spreads: each given result file's per-repeat
// medians of each point, divided by that point's median over all files (a repeat's relative deviation), kept
// together per run: repeats of one launch batch share its neighbours, so a simulated run is one real run's
// repeats drawn whole (a block bootstrap), which keeps the run-to-run spread and the correlation inside a run.
// Each simulated series has `--runs` such runs; with a step, runs from `--at` on are (1 + step) slower. A detection is
// a change point within one run of `--at`; a false alarm is any other change point (in a series without a step: any
// change point). A second table asks what lib/history:real_series_test asks of one real series: exactly one change
// point, within one run of `--at`, by how far the step as measured (the runs' medians after `--at` over those before)
// stands out of one run's spread before it (the larger of 1.4826 MAD and the standard deviation of the run medians).
// Beside it, what a test that knows where the step is finds at the same alpha (one-sided Mann-Whitney on the run
// medians before and after `--at`): what knowing where is worth (it sees one value per run, the search every repeat).
//
// usage: simulate [--series N] [--runs 30] [--at 20] [--alpha A] [--unit repeat|run] RESULT.json...
//        simulate --cv F ...   (a quiet runner's spread instead: 30 runs of 5 normal repeats, drawn whole as above)
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "lib/gate/compare.h"
#include "lib/gate/sequential.h"
#include "lib/history/changepoint.h"
#include "lib/history/recorded_runs.h"
#include "lib/stats/summary.h"

namespace {

using commbench::Median;

using commbench::history::ChangePointOptions;
using commbench::history::FindChangePoints;

// The real test's view of one series: its step as measured, in units of one run's spread before it.
double StepOverSpread(const std::vector<std::vector<double>>& v, int at) {
  std::vector<double> before, after;
  for (size_t r = 0; r < v.size(); ++r) (static_cast<int>(r) < at ? before : after).push_back(Median(v[r]));
  const double m = Median(before);
  double mean = 0, ss = 0;
  std::vector<double> dev;
  for (double x : before) {
    dev.push_back(std::fabs(x - m));
    mean += x / before.size();
  }
  for (double x : before) ss += (x - mean) * (x - mean);
  const double spread = std::max(1.4826 * Median(dev), std::sqrt(ss / (before.size() - 1))) / m;
  return (Median(after) / m - 1) / spread;
}

// The oracle: one-sided Mann-Whitney (normal approximation) of the run medians from `at` on against those before.
double KnownSplitZ(const std::vector<std::vector<double>>& v, int at) {
  std::vector<double> med;
  for (const auto& r : v) med.push_back(Median(r));
  const double n1 = at, n2 = static_cast<double>(med.size()) - at;
  double u = 0;
  for (size_t j = at; j < med.size(); ++j) {
    for (int i = 0; i < at; ++i) u += med[j] > med[i] ? 1 : med[j] == med[i] ? 0.5 : 0;
  }
  return (u - n1 * n2 / 2 - 0.5) / std::sqrt(n1 * n2 * (n1 + n2 + 1) / 12);
}

}  // namespace

// Over 80 lines: a developer tool's flags, inputs and printed table, read top to bottom as one experiment.
int main(int argc, char** argv) {
  int series = 10000, runs = 30, at = 20;
  // --unit repeat (the default, as history check: every repeat's rank, runs shuffled whole) or run (each run's
  // median alone: less power, shown for comparison).
  bool per_repeat = true;
  double cv = 0;  // --cv F: instead of real runs, 30 synthetic ones of 5 independent normal repeats of spread F
  ChangePointOptions options;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--series" && i + 1 < argc)
      series = std::atoi(argv[++i]);
    else if (a == "--runs" && i + 1 < argc)
      runs = std::atoi(argv[++i]);
    else if (a == "--at" && i + 1 < argc)
      at = std::atoi(argv[++i]);
    else if (a == "--alpha" && i + 1 < argc)
      options.alpha = std::atof(argv[++i]);
    else if (a == "--cv" && i + 1 < argc)
      cv = std::atof(argv[++i]);
    else if (a == "--unit" && i + 1 < argc)
      per_repeat = std::string(argv[++i]) == "repeat";
    else if (a == "--locate" && i + 1 < argc) {
      options.locate =
          std::string(argv[++i]) == "ranks" ? commbench::history::Locate::kRanks : commbench::history::Locate::kValues;
    } else
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
    dev = commbench::history::RecordedDeviations(files, "simulate");
  }
  if (dev.size() < 10) {
    std::fprintf(stderr, "simulate: give result files with repeats (sweep --repeats R)\n");
    return 2;
  }
  std::vector<double> sorted, medians;
  for (const auto& r : dev) {
    sorted.insert(sorted.end(), r.begin(), r.end());
    medians.push_back(Median(r));
  }
  std::sort(sorted.begin(), sorted.end());
  std::sort(medians.begin(), medians.end());
  std::printf(
      "spreads: %zu runs (%zu repeat medians) from %zu files; a repeat's relative deviation p5 %.3f, p95 %.3f; "
      "a run's median p5 %.3f, p95 %.3f\n",
      dev.size(), sorted.size(), files.size(), sorted[sorted.size() / 20], sorted[sorted.size() * 19 / 20],
      medians[medians.size() / 20], medians[medians.size() * 19 / 20]);
  std::printf(
      "series: %d per step, %d runs (each a real run's repeats, drawn whole), step from run %d, alpha %g, "
      "%d permutations\n\n",
      series, runs, at, options.alpha, options.permutations);
  std::printf("| step | detected at run %d +- 1 | series with a false alarm |\n|---|---|---|\n", at);
  std::mt19937_64 rng(20261126);
  std::uniform_int_distribution<size_t> pick(0, dev.size() - 1);
  // Per step: series where exactly one change point lies at `at` +- 1, and series, by step / spread >= 3, 2-3, < 2.
  std::vector<std::pair<double, std::array<std::array<int, 2>, 3>>> by_evidence;
  std::vector<int> known_split;
  struct Placement {
    double step;
    int found = 0, placed = 0, covered = 0, width = 0;  // change points; at `at` +- 1; set holds `at`; set widths
  };
  std::vector<Placement> placements;
  const double z_alpha = commbench::gate::NormalUpperQuantile(options.alpha);  // one-sided
  for (double step : {0.0, 0.02, 0.05, 0.10, 0.15, 0.20}) {
    int detected = 0, false_alarm = 0, oracle = 0;
    std::array<std::array<int, 2>, 3> evidence{};
    Placement placement{step};
    for (int s = 0; s < series; ++s) {
      std::vector<std::vector<double>> v(runs);
      for (int r = 0; r < runs; ++r) {
        for (double d : dev[pick(rng)]) v[r].push_back(d * (r >= at ? 1 + step : 1));
        if (!per_repeat) v[r] = {Median(v[r])};
      }
      bool hit = false, other = false;
      const auto found = FindChangePoints(v, options);
      for (const auto& cp : found) {
        if (step > 0 && std::abs(cp.index - at) <= 1)
          hit = true;
        else
          other = true;
        ++placement.found;
        placement.placed += std::abs(cp.index - at) <= 1;
        placement.covered += cp.first_lo <= at && at <= cp.first_hi;
        placement.width += cp.first_hi - cp.first_lo + 1;
      }
      detected += hit;
      false_alarm += other;
      if (step > 0) {
        oracle += KnownSplitZ(v, at) >= z_alpha;
        const double k = StepOverSpread(v, at);
        auto& bucket = evidence[k >= 3 ? 0 : k >= 2 ? 1 : 2];
        bucket[0] += hit && found.size() == 1;
        ++bucket[1];
      }
    }
    if (step > 0) {
      by_evidence.push_back({step, evidence});
      placements.push_back(placement);
      known_split.push_back(oracle);
    }
    std::printf("| %s | %s | %.2f %% |\n", step == 0 ? "none" : (std::to_string(int(step * 100 + 0.5)) + " %").c_str(),
                step == 0 ? "-" : (std::to_string(100.0 * detected / series).substr(0, 5) + " %").c_str(),
                100.0 * false_alarm / series);
    std::fflush(stdout);
  }
  std::printf(
      "\nexactly one change point, at run %d +- 1 (what real_series_test asks), by the step as measured over one run's "
      "spread: passing / series; and a test told the step is at run %d (one-sided, alpha %g)\n\n"
      "| step | known split | >= 3x | 2-3x | < 2x |\n|---|---|---|---|---|\n",
      at, at, options.alpha);
  for (size_t i = 0; i < by_evidence.size(); ++i) {
    const auto& [step, e] = by_evidence[i];
    std::printf("| %d %% | %.1f %% |", static_cast<int>(step * 100 + 0.5), 100.0 * known_split[i] / series);
    for (const auto& [pass, n] : e) std::printf(" %d / %d |", pass, n);
    std::printf("\n");
  }
  std::printf(
      "\nwhere the change points found start (--locate %s): at run %d +- 1, and their starts_in set of runs "
      "holding run %d, with its mean width\n\n| step | change points | at run %d +- 1 | set holds run %d | mean width "
      "|\n"
      "|---|---|---|---|---|\n",
      options.locate == commbench::history::Locate::kRanks ? "ranks" : "values", at, at, at, at);
  for (const Placement& p : placements) {
    const double n = std::max(1, p.found);
    std::printf("| %d %% | %d | %.1f %% | %.1f %% | %.2f runs |\n", static_cast<int>(p.step * 100 + 0.5), p.found,
                100.0 * p.placed / n, 100.0 * p.covered / n, p.width / n);
  }
  return 0;
}
