#include "lib/gate/calibration.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <utility>

#include "lib/gate/one_more_run.h"
#include "lib/gate/sequential.h"
#include "lib/stats/summary.h"

namespace commbench::gate {
namespace {

// NaN below 3 repeats: no spread can be told from so few.
double RelativeSpread(const std::vector<double>& v) {
  if (v.size() < 3) return std::nan("");
  const double m = Median(v);
  std::vector<double> dev;
  for (double x : v) dev.push_back(std::fabs(x - m));
  return m > 0 ? 1.4826 * Median(dev) / m : std::nan("");
}

// The last look's boundary when the rounds end at `n` a side under `schedule` (looks on its schedule, then n).
Boundary LastBoundary(double alpha, const LookSchedule& schedule, int64_t n) {
  std::vector<Look> looks;
  for (int64_t k = 1; k <= n; ++k) {
    if (IsLook(schedule, k) || k == n) looks.push_back({static_cast<int>(k), static_cast<int>(k)});
  }
  return LastLookBoundary(alpha, looks, {static_cast<int>(schedule.planned), static_cast<int>(schedule.planned)});
}

double Detectable(double z, double spread, int64_t n) {
  return (z + NormalUpperQuantile(0.2)) * spread * std::sqrt(2.0 / static_cast<double>(n));
}

// "3 jobs of this build spread 7.2 % and detect 41.0 % (floor 5 %)"; "1 job of this build so far: jobs apart in
// time are compared from 3 (run gate --calibrate again later)".
std::string JobsText(const PointCalibration& p) {
  const size_t jobs = p.job_medians_us.size() + 1 - p.jobs_left_out;  // the baseline's own among them
  char buf[240];
  if (jobs < kLeastOtherJobs + 1) {
    std::snprintf(buf, sizeof(buf),
                  "%zu job%s of this build so far: how far jobs apart in time drift is told from %zu (run gate "
                  "--calibrate again later)",
                  jobs, jobs == 1 ? "" : "s", kLeastOtherJobs + 1);
  } else {
    std::snprintf(buf, sizeof(buf), "%zu jobs of this build spread %.1f%% and detect %.1f%% (floor %.0f%%)%s", jobs,
                  100 * p.job_spread, 100 * p.job_detectable, 100 * p.min_effect,
                  p.job_detectable > p.min_effect ? ": more jobs (gate --calibrate) or --ab" : "");
  }
  std::string out = buf;
  if (p.jobs_left_out > 0) {
    out += " (" + std::to_string(p.jobs_left_out) + " more left out: the host ran more than " +
           std::to_string(static_cast<int>(kHostTolerance * 100)) + " % off the others' in them)";
  }
  return out;
}

}  // namespace

Calibration Calibrate(const result::ResultFile& a, const result::ResultFile& b, double elapsed_s, int64_t rounds,
                      double budget_s, const LookSchedule& schedule, const CompareOptions& options) {
  Calibration c;
  c.round_s = rounds > 0 ? elapsed_s / static_cast<double>(rounds) : 0;
  c.budget_s = budget_s;
  c.schedule = schedule;
  c.alpha = options.decision.alpha;
  const int64_t affordable =
      budget_s > 0 && c.round_s > 0 ? static_cast<int64_t>(budget_s / c.round_s) : schedule.planned;
  const int64_t n = std::max<int64_t>(1, std::min(affordable, schedule.planned));
  const Boundary last = LastBoundary(c.alpha, schedule, n);
  std::map<std::string, std::vector<double>> side[2];
  for (int s = 0; s < 2; ++s) {
    for (const result::PointResult& p : (s ? b : a).points) {
      const std::vector<double> m = result::RepeatMedians(p);
      side[s][p.id].insert(side[s][p.id].end(), m.begin(), m.end());
    }
  }
  for (const result::PointResult& p : a.points) {
    if (!side[1].count(p.id)) continue;
    PointCalibration pc;
    pc.id = p.id;
    const std::vector<double>&va = side[0][p.id], &vb = side[1][p.id];
    pc.repeats = static_cast<int64_t>(std::min(va.size(), vb.size()));
    pc.spread = std::max(RelativeSpread(va), RelativeSpread(vb));
    pc.aa_ratio = Median(vb) / Median(va);
    std::vector<double> both = va;
    both.insert(both.end(), vb.begin(), vb.end());
    if (!both.empty()) pc.job_medians_us = {Median(both)};
    pc.job_spread = std::nan("");
    pc.job_detectable = INFINITY;
    pc.budget_repeats = n;
    pc.detectable = std::isfinite(last.z) && std::isfinite(pc.spread) ? Detectable(last.z, pc.spread, n) : INFINITY;
    pc.min_effect = MinEffectFor(options, p.point.bytes);
    pc.false_alarm = last.spent / 2;
    pc.gateable = pc.detectable <= pc.min_effect;
    if (!pc.gateable) {
      // With the repeats planned to n' (the budget's rounds), the last look is the fixed test's boundary: the
      // smallest n' whose detectable change is within the floor.
      const double z = NormalUpperQuantile(c.alpha / 2) + NormalUpperQuantile(0.2);
      const double needed = 2 * std::pow(z * pc.spread / pc.min_effect, 2);
      pc.repeats_needed = std::isfinite(needed) && needed < 1e5 ? static_cast<int64_t>(std::ceil(needed)) : -1;
    }
    c.points.push_back(pc);
  }
  return c;
}

Calibration CalibrateOneSide(const result::ResultFile& runs, double elapsed_s, int64_t rounds, double budget_s,
                             const LookSchedule& schedule, const CompareOptions& options) {
  Calibration c = Calibrate(runs, runs, elapsed_s, rounds, budget_s, schedule, options);
  c.source = CalibrationSource::kBaselineRepeats;
  for (PointCalibration& p : c.points) {
    p.aa_ratio = std::nan("");  // one side: no A/A to compare
    p.job_medians_us.clear();   // these repeats are the baseline's own job
  }
  return c;
}

// Which of the jobs (by their host speeds, 0: not measured) ran on a host as the others' did.
std::vector<bool> SteadyHost(const std::vector<double>& job_host_s, double base_host_s) {
  std::vector<double> measured;
  if (std::isfinite(base_host_s) && base_host_s > 0) measured.push_back(base_host_s);
  for (double h : job_host_s) {
    if (h > 0) measured.push_back(h);
  }
  std::vector<bool> keep(job_host_s.size(), true);
  if (measured.size() < 3) return keep;  // too few to tell a spell from the rest
  const double typical = Median(measured);
  for (size_t i = 0; i < job_host_s.size(); ++i) {
    keep[i] = job_host_s[i] <= 0 || std::fabs(job_host_s[i] / typical - 1) <= kHostTolerance;
  }
  return keep;
}

// The jobs kept (`keep`, SteadyHost's); every job where jobs and host speeds do not align (older files).
std::vector<double> Kept(const std::vector<double>& jobs, const std::vector<bool>& keep) {
  std::vector<double> out;
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (jobs.size() != keep.size() || keep[i]) out.push_back(jobs[i]);
  }
  return out;
}

void AddJobs(const Calibration* before, const result::ResultFile& baseline, double base_host_s,
             const CompareOptions& options, Calibration* now) {
  std::map<std::string, double> base_median;
  for (const result::PointResult& p : baseline.points) {
    const std::vector<double> m = result::RepeatMedians(p);
    if (!m.empty()) base_median[p.id] = Median(m);
  }
  std::vector<double> hosts = before ? before->job_host_s : std::vector<double>{};
  hosts.insert(hosts.end(), now->job_host_s.begin(), now->job_host_s.end());
  if (hosts.size() > kMostCalibrationJobs) hosts.erase(hosts.begin(), hosts.end() - kMostCalibrationJobs);
  now->job_host_s = hosts;
  const std::vector<bool> keep = SteadyHost(hosts, base_host_s);
  for (PointCalibration& p : now->points) {
    std::vector<double> jobs;
    if (const PointCalibration* old = before ? Find(*before, p.id) : nullptr) jobs = old->job_medians_us;
    jobs.insert(jobs.end(), p.job_medians_us.begin(), p.job_medians_us.end());
    if (jobs.size() > kMostCalibrationJobs) jobs.erase(jobs.begin(), jobs.end() - kMostCalibrationJobs);
    p.job_medians_us = jobs;
    p.job_spread = std::nan("");
    p.job_detectable = INFINITY;
    const std::vector<double> kept = Kept(jobs, keep);
    p.jobs_left_out = jobs.size() - kept.size();
    auto base = base_median.find(p.id);
    if (base == base_median.end() || kept.size() < kLeastOtherJobs) continue;
    std::vector<double> runs = {base->second};
    runs.insert(runs.end(), kept.begin(), kept.end());
    p.job_spread = LogSpread(runs);
    DecisionOptions d = options.decision;
    d.min_effect = p.min_effect;
    p.job_detectable = DetectableAgainstRuns(runs, d);
    if (p.job_detectable > p.min_effect) p.gateable = false;
  }
}

Calibration WithoutJobs(Calibration c) {
  c.job_host_s.clear();
  for (PointCalibration& p : c.points) {
    p.job_medians_us.clear();
    p.jobs_left_out = 0;
    p.job_spread = std::nan("");
    p.job_detectable = INFINITY;
    p.gateable = p.detectable <= p.min_effect;
  }
  return c;
}

JobsToJudge SteadyJobs(const Calibration& c, double base_host_s) {
  JobsToJudge out;
  const std::vector<bool> keep = SteadyHost(c.job_host_s, base_host_s);
  out.left_out = static_cast<size_t>(std::count(keep.begin(), keep.end(), false));
  for (size_t i = 0; i < c.job_host_s.size(); ++i) {
    if (keep[i] && c.job_host_s[i] > 0) out.host_s.push_back(c.job_host_s[i]);
  }
  for (const PointCalibration& p : c.points) {
    std::vector<double> jobs = Kept(p.job_medians_us, keep);
    if (!jobs.empty()) out.medians_us[p.id] = std::move(jobs);
  }
  return out;
}

const PointCalibration* Find(const Calibration& c, const std::string& id) {
  for (const PointCalibration& p : c.points) {
    if (p.id == id) return &p;
  }
  return nullptr;
}

nlohmann::json CalibrationToJson(const Calibration& c) {
  nlohmann::json j = {{"kind", "commbench calibration"},
                      {"schema_version", 1},
                      {"source", std::string(NameOf(kCalibrationSourceNames, c.source))},
                      {"round_s", c.round_s},
                      {"budget_s", c.budget_s},
                      {"planned_repeats", c.schedule.planned},
                      {"first_look", c.schedule.first_look},
                      {"look_every", c.schedule.look_every},
                      {"alpha", c.alpha},
                      {"job_host_s", c.job_host_s},
                      {"points", nlohmann::json::array()}};
  for (const PointCalibration& p : c.points) {
    auto number = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
    j["points"].push_back({{"id", p.id},
                           {"repeats", p.repeats},
                           {"spread", number(p.spread)},
                           {"aa_ratio", number(p.aa_ratio)},
                           {"budget_repeats", p.budget_repeats},
                           {"detectable", number(p.detectable)},
                           {"min_effect", p.min_effect},
                           {"false_alarm", p.false_alarm},
                           {"gateable", p.gateable},
                           {"repeats_needed", p.repeats_needed},
                           {"job_medians_us", p.job_medians_us},
                           {"jobs_left_out", p.jobs_left_out},
                           {"job_spread", number(p.job_spread)},
                           {"job_detectable", number(p.job_detectable)}});
  }
  return j;
}

StatusOr<Calibration> CalibrationFromJson(const nlohmann::json& j, const std::string& path) {
  try {
    if (j.at("kind") != "commbench calibration" || j.at("schema_version") != 1) {
      return InvalidArgument(path + ": not a commbench calibration of schema_version 1");
    }
    Calibration c;
    if (j.contains("source")) {  // absent in the first files: A/A was the only source
      auto source = ParseName(kCalibrationSourceNames, j.at("source").get<std::string>(), "unknown source");
      if (!source.ok()) return InvalidArgument(path + ": gate_calibration: " + source.status().message());
      c.source = *source;
    }
    c.round_s = j.at("round_s");
    c.budget_s = j.at("budget_s");
    c.schedule.planned = j.at("planned_repeats");
    c.schedule.first_look = j.at("first_look");
    c.schedule.look_every = j.at("look_every");
    c.alpha = j.at("alpha");
    c.job_host_s = j.value("job_host_s", std::vector<double>{});  // absent before jobs were kept
    auto number = [](const nlohmann::json& v) { return v.is_null() ? INFINITY : v.get<double>(); };
    for (const nlohmann::json& p : j.at("points")) {
      PointCalibration pc;
      pc.id = p.at("id");
      pc.repeats = p.at("repeats");
      pc.spread = number(p.at("spread"));
      pc.aa_ratio = number(p.at("aa_ratio"));
      pc.budget_repeats = p.at("budget_repeats");
      pc.detectable = number(p.at("detectable"));
      pc.min_effect = p.at("min_effect");
      pc.false_alarm = p.at("false_alarm");
      pc.gateable = p.at("gateable");
      pc.repeats_needed = p.at("repeats_needed");
      // Absent in files before jobs were kept: none.
      pc.job_medians_us = p.value("job_medians_us", std::vector<double>{});
      pc.jobs_left_out = p.value("jobs_left_out", size_t{0});
      pc.job_spread =
          p.contains("job_spread") && !p.at("job_spread").is_null() ? p.at("job_spread").get<double>() : std::nan("");
      pc.job_detectable = p.contains("job_detectable") ? number(p.at("job_detectable")) : INFINITY;
      c.points.push_back(pc);
    }
    return c;
  } catch (const nlohmann::json::exception& e) {
    return InvalidArgument(path + ": not a calibration (" + e.what() + ")");
  }
}

std::string CalibrationPath(const std::string& baseline) {
  const std::string suffix = ".json";
  const bool json =
      baseline.size() > suffix.size() && baseline.compare(baseline.size() - suffix.size(), suffix.size(), suffix) == 0;
  return (json ? baseline.substr(0, baseline.size() - suffix.size()) : baseline) + ".calibration.json";
}

std::string CalibrationToText(const Calibration& c) {
  std::string t;
  char buf[400];
  for (const PointCalibration& p : c.points) {
    std::snprintf(buf, sizeof(buf),
                  "%s  %s: a repeat spreads %.1f%%; %lld repeats a side within the budget detect %.1f%% (floor "
                  "%.0f%%), false alarms expected %.2f%%",
                  p.gateable ? "gateable  " : "ungateable", p.id.c_str(), 100 * p.spread,
                  static_cast<long long>(p.budget_repeats), 100 * p.detectable, 100 * p.min_effect,
                  100 * p.false_alarm);
    t += buf;
    if (!std::isfinite(p.spread)) {
      t = t.substr(0, t.rfind(p.id.c_str()) + p.id.size()) + ": too few A/A repeats (" + std::to_string(p.repeats) +
          " a side) to tell a repeat's spread: give --calibrate a larger --budget";
    } else if (p.detectable > p.min_effect) {
      t += p.repeats_needed > 0 ? "; it would need " + std::to_string(p.repeats_needed) + " repeats a side"
                                : std::string("; no practical number of repeats reaches the floor");
    }
    if (std::isfinite(p.spread)) t += "; " + JobsText(p);
    t += "\n";
  }
  std::snprintf(buf, sizeof(buf), "a round of every point took %.2f s (%s); budget %.0f s\n", c.round_s,
                c.source == CalibrationSource::kAa ? "A/A: both sides" : "the baseline's own repeats", c.budget_s);
  return t + buf;
}

std::string UngateableText(const PointCalibration& p) {
  if (p.gateable) return "";
  if (!std::isfinite(p.spread)) return "too few calibration repeats to tell a repeat's spread";
  if (p.detectable <= p.min_effect) return "against a stored baseline, " + JobsText(p);
  char buf[200];
  std::snprintf(buf, sizeof(buf), "a repeat spreads %.1f%%, %lld repeats a side detect %.1f%% (floor %.0f%%)",
                100 * p.spread, static_cast<long long>(p.budget_repeats), 100 * p.detectable, 100 * p.min_effect);
  return buf + (p.repeats_needed > 0 ? "; it would need " + std::to_string(p.repeats_needed) + " repeats a side"
                                     : std::string("; no practical number of repeats reaches the floor"));
}

}  // namespace commbench::gate
