// The simulated suite (docs/history.md): detection and false-alarm rates of history check's change points per
// step size, on series whose noise is resampled from real runs. The spreads: each given result file's per-repeat
// medians of each point, divided by that point's median over all files (a repeat's relative deviation), kept
// together per run: repeats of one launch batch share its neighbours, so a simulated run is one real run's
// repeats drawn whole (a block bootstrap), which keeps the run-to-run spread and the correlation inside a run.
// Each simulated series has `--runs` such runs; with a step, runs from `--at` on are (1 + step) slower. A detection is a change point within one run of `--at`; a false
// alarm is any other change point (in a series without a step: any change point).
//
// usage: simulate [--series N] [--runs 30] [--at 20] [--alpha A] [--unit repeat|run] RESULT.json...
//        simulate --cv F ...   (a quiet runner's spread instead: 30 runs of 5 normal repeats, drawn whole as above)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "lib/gate/compare.h"
#include "lib/history/changepoint.h"

namespace {

using commbench::history::ChangePointOptions;
using commbench::history::FindChangePoints;

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::vector<std::vector<double>> Deviations(const std::vector<std::string>& files) {
  std::map<std::string, std::vector<std::vector<double>>> by_point;
  for (const std::string& f : files) {
    auto file = commbench::gate::LoadComparable(f);
    if (!file.ok()) {
      std::fprintf(stderr, "simulate: %s\n", file.status().message().c_str());
      std::exit(2);
    }
    for (const auto& p : file->points) by_point[p.point.Id()].push_back(commbench::result::RepeatMedians(p));
  }
  std::vector<std::vector<double>> dev;
  for (const auto& [id, runs] : by_point) {
    std::vector<double> all;
    for (const auto& r : runs) all.insert(all.end(), r.begin(), r.end());
    const double m = Median(all);
    for (auto r : runs) {
      for (double& v : r) v /= m;
      dev.push_back(r);
    }
  }
  return dev;
}

}  // namespace

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
    if (a == "--series" && i + 1 < argc) series = std::atoi(argv[++i]);
    else if (a == "--runs" && i + 1 < argc) runs = std::atoi(argv[++i]);
    else if (a == "--at" && i + 1 < argc) at = std::atoi(argv[++i]);
    else if (a == "--alpha" && i + 1 < argc) options.alpha = std::atof(argv[++i]);
    else if (a == "--cv" && i + 1 < argc) cv = std::atof(argv[++i]);
    else if (a == "--unit" && i + 1 < argc) per_repeat = std::string(argv[++i]) == "repeat";
    else files.push_back(a);
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
    dev = Deviations(files);
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
  std::printf("spreads: %zu runs (%zu repeat medians) from %zu files; a repeat's relative deviation p5 %.3f, p95 %.3f; "
              "a run's median p5 %.3f, p95 %.3f\n", dev.size(), sorted.size(), files.size(), sorted[sorted.size() / 20],
              sorted[sorted.size() * 19 / 20], medians[medians.size() / 20], medians[medians.size() * 19 / 20]);
  std::printf("series: %d per step, %d runs (each a real run's repeats, drawn whole), step from run %d, alpha %g, "
              "%d permutations\n\n", series, runs, at, options.alpha, options.permutations);
  std::printf("| step | detected at run %d +- 1 | series with a false alarm |\n|---|---|---|\n", at);
  std::mt19937_64 rng(20261126);
  std::uniform_int_distribution<size_t> pick(0, dev.size() - 1);
  for (double step : {0.0, 0.02, 0.05, 0.10, 0.15, 0.20}) {
    int detected = 0, false_alarm = 0;
    for (int s = 0; s < series; ++s) {
      std::vector<std::vector<double>> v(runs);
      for (int r = 0; r < runs; ++r) {
        for (double d : dev[pick(rng)]) v[r].push_back(d * (r >= at ? 1 + step : 1));
        if (!per_repeat) v[r] = {Median(v[r])};
      }
      bool hit = false, other = false;
      for (const auto& cp : FindChangePoints(v, options)) {
        if (step > 0 && std::abs(cp.index - at) <= 1) hit = true;
        else other = true;
      }
      detected += hit;
      false_alarm += other;
    }
    std::printf("| %s | %s | %.2f %% |\n", step == 0 ? "none" : (std::to_string(int(step * 100 + 0.5)) + " %").c_str(),
                step == 0 ? "-" : (std::to_string(100.0 * detected / series).substr(0, 5) + " %").c_str(),
                100.0 * false_alarm / series);
    std::fflush(stdout);
  }
  return 0;
}
