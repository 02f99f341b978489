#include "lib/history/check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "lib/core/markdown.h"
#include "lib/core/printable.h"
#include "lib/core/xml.h"
#include "lib/gate/decision.h"
#include "lib/model/point_json.h"
#include "lib/stats/summary.h"

namespace commbench::history {
namespace {

using nlohmann::json;

std::vector<double> Pool(const std::vector<std::vector<double>>& runs, int begin, int end) {
  std::vector<double> out;
  for (int i = begin; i < end; ++i) out.insert(out.end(), runs[i].begin(), runs[i].end());
  return out;
}

Level LevelOf(const Series& s, int begin, int end) {
  Level l{begin, end};
  const std::vector<double> values(s.values.begin() + begin, s.values.begin() + end);
  l.median_us = Median(Pool(s.repeats, begin, end));
  std::vector<double> dev;
  const double m = Median(values);
  for (double v : values) dev.push_back(std::fabs(v - m));
  const double spread = 2 * 1.4826 * Median(dev);
  l.band_lo_us = m - spread;
  l.band_hi_us = m + spread;
  return l;
}

std::string Fixed(double v, int decimals) {
  if (!std::isfinite(v)) return "n/a";
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
  return buf;
}

std::string Key(const Series& s) { return s.point_id + " @ " + s.fingerprint; }

// Outside load on the ranks' CPUs disturbs a run; the ranks' own run-queue wait does not (a point with more ranks
// than cores always waits, the same in every run).
const gate::DisturbanceRule kOutsideLoadOnly{0.10, std::numeric_limits<double>::infinity()};

// Two runs each side of a change point: where outside load could have made or moved it.
constexpr int kDisturbedNeighbourhood = 2;

void NoteDisturbedNeighbours(const Series& s, Change* c) {
  const int n = static_cast<int>(s.disturbance.size());
  for (int i = std::max(0, c->index - kDisturbedNeighbourhood); i < std::min(n, c->index + kDisturbedNeighbourhood);
       ++i) {
    if (!s.disturbance[static_cast<size_t>(i)].disturbed) continue;
    if (c->disturbed_runs.empty()) c->disturbed_why = s.disturbance[static_cast<size_t>(i)].why;
    c->disturbed_runs.push_back(i);
  }
}

std::string DisturbedNote(const Change& c) {
  if (c.disturbed_runs.empty()) return "";
  std::string runs;
  for (int i : c.disturbed_runs) runs += (runs.empty() ? "" : ", ") + std::to_string(i);
  return " [disturbed: run" + std::string(c.disturbed_runs.size() > 1 ? "s " : " ") + runs + " measured while " +
         c.disturbed_why + "; re-run on a quiet runner]";
}

// A step small beside the noise starts somewhere in a few runs: say which, and the commits that bound them.
std::string Where(const Change& c) {
  if (c.first_lo == c.first_hi) return "";
  return "; it starts in runs " + std::to_string(c.first_lo) + "-" + std::to_string(c.first_hi) + ": bisect " +
         c.good_commit + ".." + c.bad_commit;
}

std::string Describe(const Change& c) {
  return std::string(c.slower ? "slower" : "faster") + " from run " + std::to_string(c.index) + " (" + c.run_id +
         ", commit " + c.commit + ", " + c.time + "): " + Fixed(c.before_us, 2) + " -> " + Fixed(c.after_us, 2) +
         " us, ratio " + Fixed(c.ratio, 3) + " [" + Fixed(c.ratio_lo, 3) + ", " + Fixed(c.ratio_hi, 3) +
         "], p = " + Fixed(c.p, 4) + Where(c);
}

// The changes of every series, slowest first (largest ratio).
std::vector<std::pair<const SeriesCheck*, const Change*>> SlowestFirst(const CheckResult& r) {
  std::vector<std::pair<const SeriesCheck*, const Change*>> all;
  for (const SeriesCheck& s : r.series) {
    for (const Change& c : s.changes) all.push_back({&s, &c});
  }
  std::stable_sort(all.begin(), all.end(),
                   [](const auto& a, const auto& b) { return a.second->ratio > b.second->ratio; });
  return all;
}

// Run counts the resolution's searches try: each up to 50, then 5 % more each time (what they answer is "about").
int Next(int runs) { return runs < 50 ? runs + 1 : runs + runs / 20; }

// What the last level [begin, n) can see: the smallest step min_segment runs from the end, and the runs after a
// step of the floor's size it needs with all the level's runs before it.
Resolution ResolutionOf(const Series& s, int begin, const CheckOptions& o) {
  const ChangePointOptions& cp = o.change_points;
  Resolution res;
  res.spread = RunToRunSpread(s.values);
  res.level_runs = static_cast<int>(s.values.size()) - begin;
  res.runs_after = cp.min_segment;
  res.detectable = res.level_runs >= 2 * cp.min_segment
                       ? DetectableStep(res.level_runs - cp.min_segment, cp.min_segment, res.spread, cp)
                       : std::numeric_limits<double>::infinity();
  res.test = PermutationsCanDecide(res.level_runs, cp.min_segment, cp) ? SplitTest::kPermutation : SplitTest::kStudentT;
  for (int after = cp.min_segment; after <= kMaxRunsAhead && res.level_runs >= cp.min_segment; after = Next(after)) {
    if (DetectableStep(res.level_runs, after, res.spread, cp) <= o.min_effect) {
      res.floor_runs_after = after;
      break;
    }
  }
  return res;
}

// The series' runs at which a step of `step` from run `index` of the level [begin, n), staying that size, would
// reach alpha (a step of that size found half the time) as the runs after it grow; 0 when more than kMaxRunsAhead
// more would not do (too few runs before it for that spread).
int RunsNeeded(int begin, int index, int n, double step, double spread, const CheckOptions& o) {
  for (int more = 1; more <= kMaxRunsAhead; more = Next(more)) {
    if (DetectableStep(index - begin, n + more - index, spread, o.change_points, 0.5) <= step) return n + more;
  }
  return 0;
}

std::string Percent(double fraction) { return std::isfinite(fraction) ? Fixed(100 * fraction, 1) + " %" : "none yet"; }

// The resolution in words: "finds 7.6 % 3 runs after a step (one run's spread 2.0 %, student t); the floor's 5.0 %
// needs 12 runs after it".
std::string ResolutionNote(const SeriesCheck& s, const CheckOptions& o) {
  const Resolution& r = s.resolution;
  std::string t = "finds " + Percent(r.detectable) + " " + std::to_string(r.runs_after) + " runs after a step";
  if (!std::isfinite(r.detectable)) {
    t = "finds no new step yet (" + std::to_string(r.level_runs) + " runs since the last change, a split needs " +
        std::to_string(2 * r.runs_after) + ")";
  }
  t += " (one run's spread " + Percent(r.spread) + ", " + Name(r.test) + "); a " + Percent(o.min_effect) +
       " step needs ";
  return t + (r.floor_runs_after > 0 ? std::to_string(r.floor_runs_after) + " runs after it"
                                     : "more than " + std::to_string(kMaxRunsAhead) + " runs after it at this spread");
}

std::string UnresolvedNote(const SeriesCheck& s) {
  const Unresolved& u = s.unresolved;
  const size_t n = s.series.runs.size();
  return "too few runs to tell: " + std::to_string(n) + " runs, needs " +
         (u.runs_needed > 0 ? "about " + std::to_string(u.runs_needed)
                            : "more than " + std::to_string(n + kMaxRunsAhead)) +
         ": slower from run " + std::to_string(u.index) + " (" + u.run_id + ", commit " + u.commit +
         "): " + Fixed(u.before_us, 2) + " -> " + Fixed(u.after_us, 2) + " us, ratio " + Fixed(u.ratio, 3) +
         ", p = " + Fixed(u.p, 4) + " (" + Name(u.test) + "), beyond the noise of runs that spread " +
         Percent(s.resolution.spread);
}

}  // namespace

std::string Name(SeriesVerdict v) {
  switch (v) {
    case SeriesVerdict::kOk:
      return "ok";
    case SeriesVerdict::kRegression:
      return "regression";
    case SeriesVerdict::kTooShort:
      return "too short";
    case SeriesVerdict::kDisturbed:
      return "disturbed";
    case SeriesVerdict::kTooFewRuns:
      return "too few runs";
  }
  return "?";
}

int CheckResult::ExitCode() const {
  bool short_series = series.empty();
  for (const SeriesCheck& s : series) {
    if (s.verdict == SeriesVerdict::kRegression) return 1;
    short_series |= s.verdict == SeriesVerdict::kTooShort || s.verdict == SeriesVerdict::kDisturbed ||
                    s.verdict == SeriesVerdict::kTooFewRuns;
  }
  return short_series ? 3 : 0;
}

StatusOr<std::vector<Series>> BuildSeries(const std::string& dir, const History& history, int window) {
  ASSIGN_OR_RETURN(StoreDir store, StoreDir::Open(dir, false));
  std::map<std::pair<std::string, std::string>, Series> by_key;
  std::vector<std::pair<std::string, std::string>> order;
  // Run order is time order (ISO 8601 UTC sorts as text); runs filed with the same time keep their filing order.
  std::vector<RunEntry> runs = history.runs;
  std::stable_sort(runs.begin(), runs.end(), [](const RunEntry& a, const RunEntry& b) { return a.time < b.time; });
  if (window > 0) {  // the last `window` runs of each runner: the only files read
    std::map<std::string, int> kept;
    std::vector<bool> keep(runs.size());
    for (size_t i = runs.size(); i-- > 0;) keep[i] = ++kept[runs[i].fingerprint] <= window;
    std::vector<RunEntry> recent;
    for (size_t i = 0; i < runs.size(); ++i) {
      if (keep[i]) recent.push_back(std::move(runs[i]));
    }
    runs = std::move(recent);
  }
  for (const RunEntry& run : runs) {
    auto file = LoadRun(store, run);
    if (!file.ok()) return file.status();
    for (const result::PointResult& p : file->points) {
      const auto key = std::make_pair(run.fingerprint, p.point.Id());
      auto [it, added] = by_key.try_emplace(key);
      Series& s = it->second;
      if (added) {
        order.push_back(key);
        s.fingerprint = run.fingerprint;
        s.runner = run.runner;
        s.point_id = p.point.Id();
        s.point = p.point;
      }
      s.runs.push_back(run);
      s.repeats.push_back(result::RepeatMedians(p));
      s.values.push_back(Median(s.repeats.back()));
      s.disturbance.push_back(gate::JudgeRepeat(p, file->header.environment.affinity, kOutsideLoadOnly));
    }
  }
  std::vector<Series> out;
  for (const auto& key : order) out.push_back(std::move(by_key[key]));
  return out;
}

SeriesCheck CheckSeries(const Series& s, const CheckOptions& o) {
  SeriesCheck sc;
  sc.series = s;
  const int n = static_cast<int>(s.values.size());
  const std::vector<ChangePoint> found =
      n >= o.min_runs ? FindChangePoints(s.repeats, o.change_points) : std::vector<ChangePoint>{};
  std::vector<int> cuts = {0};
  for (const ChangePoint& cp : found) cuts.push_back(cp.index);
  cuts.push_back(n);
  for (size_t i = 0; i + 1 < cuts.size(); ++i) sc.levels.push_back(LevelOf(s, cuts[i], cuts[i + 1]));
  for (size_t i = 0; i < found.size(); ++i) {
    Change c;
    c.index = found[i].index;
    c.p = found[i].p;
    c.test = found[i].test;
    c.first_lo = found[i].first_lo;
    c.first_hi = found[i].first_hi;
    c.good_commit = s.runs[c.first_lo - 1].commit;
    c.bad_commit = s.runs[c.first_hi].commit;
    c.run_id = s.runs[c.index].id;
    c.commit = s.runs[c.index].commit;
    c.time = s.runs[c.index].time;
    const std::vector<double> before = Pool(s.repeats, cuts[i], cuts[i + 1]);
    const std::vector<double> after = Pool(s.repeats, cuts[i + 1], cuts[i + 2]);
    c.before_us = Median(before);
    c.after_us = Median(after);
    c.ratio = c.after_us / c.before_us;
    gate::BootstrapRatioCI(before, after, 2000, o.change_points.seed, &c.ratio_lo, &c.ratio_hi);
    c.slower = c.ratio > 1;
    c.beyond_floor = std::fabs(c.ratio - 1) >= o.min_effect;
    c.recent = c.index >= n - o.last;
    NoteDisturbedNeighbours(s, &c);
    sc.changes.push_back(c);
  }
  if (n < o.min_runs) {
    sc.verdict = SeriesVerdict::kTooShort;
  } else {
    for (const Change& c : sc.changes) {
      if (!(c.slower && c.beyond_floor && c.recent)) continue;
      if (c.disturbed_runs.empty()) {
        sc.verdict = SeriesVerdict::kRegression;
      } else if (sc.verdict != SeriesVerdict::kRegression) {
        sc.verdict = SeriesVerdict::kDisturbed;
      }
    }
  }
  const int begin = cuts[cuts.size() - 2];  // the last level
  sc.resolution = ResolutionOf(s, begin, o);
  if (n < o.min_runs || sc.verdict != SeriesVerdict::kOk) return sc;
  // The last level's best split, not significant: a recent slowdown beyond the floor and one run's spread that
  // the runs cannot tell yet is not a pass (8 runs of which 4 are 30 % slower: the permutations cannot reach
  // alpha, and Student's t may need more runs when they spread).
  const Split split = TestBestSplit(s.repeats, begin, n, o.change_points);
  if (split.index < 0 || split.significant || split.index < n - o.last) return sc;
  Unresolved u;
  u.index = split.index;
  u.run_id = s.runs[u.index].id;
  u.commit = s.runs[u.index].commit;
  u.before_us = Median(Pool(s.repeats, begin, u.index));
  u.after_us = Median(Pool(s.repeats, u.index, n));
  u.ratio = u.after_us / u.before_us;
  u.p = split.p;
  u.test = split.test;
  // Beyond the noise: twice the split's own standard error at one run's spread (a known split would call it at
  // about 5 %; the search, not knowing where, could not). Plain noise's best split clears it in a few per cent of
  // series; one run's spread alone (first tried) let 17-38 % of A/A series on this host say "too few runs".
  const double noise = 2 * sc.resolution.spread * std::sqrt(1.0 / (u.index - begin) + 1.0 / (n - u.index));
  if (!(u.ratio - 1 >= o.min_effect && std::log(u.ratio) > noise)) return sc;
  u.runs_needed = RunsNeeded(begin, u.index, n, u.ratio - 1, sc.resolution.spread, o);
  sc.unresolved = u;
  sc.unresolved_step = true;
  sc.verdict = SeriesVerdict::kTooFewRuns;
  return sc;
}

StatusOr<CheckResult> CheckHistory(const std::string& dir, const CheckOptions& options) {
  auto history = LoadHistory(dir);
  if (!history.ok()) {
    if (history.status().code() == StatusCode::kNotFound) return InvalidArgument(history.status().message());
    return history.status();
  }
  auto series = BuildSeries(dir, *history, options.window);
  if (!series.ok()) return series.status();
  CheckResult r;
  r.dir = dir;
  r.options = options;
  for (const Series& s : *series) r.series.push_back(CheckSeries(s, options));
  return r;
}

json CheckToJson(const CheckResult& r) {
  const ChangePointOptions& cp = r.options.change_points;
  json j = {
      {"kind", "commbench history check"}, {"schema_version", 1}, {"history", r.dir}, {"exit_code", r.ExitCode()}};
  j["options"] = {
      {"method", "e-divisive means on ranks, permutation test (student t where permutations cannot reach alpha)"},
      {"alpha", cp.alpha},
      {"permutations", cp.permutations},
      {"min_segment", cp.min_segment},
      {"min_effect", r.options.min_effect},
      {"last", r.options.last},
      {"min_runs", r.options.min_runs},
      {"window", r.options.window}};
  j["series"] = json::array();
  for (const SeriesCheck& sc : r.series) {
    const Series& s = sc.series;
    json runs = json::array();
    for (size_t i = 0; i < s.runs.size(); ++i) {
      runs.push_back({{"id", s.runs[i].id},
                      {"commit", s.runs[i].commit},
                      {"time", s.runs[i].time},
                      {"repeats_us", s.repeats[i]},
                      {"median_us", s.values[i]}});
    }
    json changes = json::array();
    for (const Change& c : sc.changes) {
      changes.push_back({{"index", c.index},
                         {"starts_in", {c.first_lo, c.first_hi}},
                         {"bisect", {{"good", c.good_commit}, {"bad", c.bad_commit}}},
                         {"run", c.run_id},
                         {"commit", c.commit},
                         {"time", c.time},
                         {"direction", c.slower ? "slower" : "faster"},
                         {"before_us", c.before_us},
                         {"after_us", c.after_us},
                         {"ratio", c.ratio},
                         {"ratio_ci95", {c.ratio_lo, c.ratio_hi}},
                         {"p_value", c.p},
                         {"test", Name(c.test)},
                         {"beyond_floor", c.beyond_floor},
                         {"recent", c.recent},
                         {"disturbed_runs", c.disturbed_runs},
                         {"disturbed_why", c.disturbed_why}});
    }
    json levels = json::array();
    for (const Level& l : sc.levels) {
      levels.push_back(
          {{"begin", l.begin}, {"end", l.end}, {"median_us", l.median_us}, {"band_us", {l.band_lo_us, l.band_hi_us}}});
    }
    const Resolution& res = sc.resolution;
    const auto finite_or_null = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };
    const json resolution = {{"spread", res.spread},
                             {"level_runs", res.level_runs},
                             {"runs_after", res.runs_after},
                             {"detectable_step", finite_or_null(res.detectable)},
                             {"test", Name(res.test)},
                             {"floor_runs_after", res.floor_runs_after > 0 ? json(res.floor_runs_after) : json()}};
    json unresolved = nullptr;
    if (sc.unresolved_step) {
      const Unresolved& u = sc.unresolved;
      unresolved = {{"index", u.index},
                    {"run", u.run_id},
                    {"commit", u.commit},
                    {"before_us", u.before_us},
                    {"after_us", u.after_us},
                    {"ratio", u.ratio},
                    {"p_value", u.p},
                    {"test", Name(u.test)},
                    {"runs_needed", u.runs_needed > 0 ? json(u.runs_needed) : json()}};
    }
    json axes = PointToJson(s.point);
    axes.erase("id");
    j["series"].push_back({{"point", s.point_id},
                           {"fingerprint", s.fingerprint},
                           {"runner", s.runner},
                           {"axes", axes},
                           {"verdict", Name(sc.verdict)},
                           {"runs", runs},
                           {"changes", changes},
                           {"levels", levels},
                           {"resolution", resolution},
                           {"unresolved", unresolved}});
  }
  return j;
}

std::string CheckToJunit(const CheckResult& r) {
  int failures = 0, skipped = 0;
  for (const SeriesCheck& s : r.series) {
    failures += s.verdict == SeriesVerdict::kRegression;
    skipped += s.verdict == SeriesVerdict::kTooShort || s.verdict == SeriesVerdict::kDisturbed ||
               s.verdict == SeriesVerdict::kTooFewRuns;
  }
  std::string x =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites><testsuite name=\"commbench.history\" tests=\"" +
      std::to_string(r.series.size()) + "\" failures=\"" + std::to_string(failures) + "\" skipped=\"" +
      std::to_string(skipped) + "\">\n";
  for (const SeriesCheck& s : r.series) {
    x += "<testcase classname=\"commbench.history\" name=\"" + XmlEscape(Key(s.series)) + "\">";
    if (s.verdict == SeriesVerdict::kRegression) {
      for (const Change& c : s.changes) {
        if (c.slower && c.beyond_floor && c.recent) {
          x += "<failure message=\"" + XmlEscape("regression: " + Describe(c)) + "\"/>";
        }
      }
    } else if (s.verdict == SeriesVerdict::kDisturbed) {
      for (const Change& c : s.changes) {
        if (c.disturbed_runs.empty()) continue;
        x += "<skipped message=\"" + XmlEscape("disturbed: " + Describe(c) + DisturbedNote(c)) + "\"/>";
        break;
      }
    } else if (s.verdict == SeriesVerdict::kTooFewRuns) {
      x += "<skipped message=\"" + XmlEscape(UnresolvedNote(s)) + "\"/>";
    } else if (s.verdict == SeriesVerdict::kTooShort) {
      x += "<skipped message=\"" +
           XmlEscape("too short: " + std::to_string(s.series.runs.size()) + " runs of the " +
                     std::to_string(r.options.min_runs) + " needed") +
           "\"/>";
    }
    x += "</testcase>\n";
  }
  return x + "</testsuite></testsuites>\n";
}

std::string CheckToMarkdown(const CheckResult& r) {
  static const char* kOutcome[] = {"no regression", "regression", "",
                                   "too short, too few runs to tell or disturbed: cannot say"};
  std::string m = "### commbench history: " + std::string(kOutcome[r.ExitCode()]) + "\n\n";
  m += "| series | runs | verdict | change points | what it can see |\n|---|---|---|---|---|\n";
  for (const SeriesCheck& s : r.series) {
    m += "| " + MarkdownText(Key(s.series)) + " | " + std::to_string(s.series.runs.size()) + " | " + Name(s.verdict) +
         " | " + std::to_string(s.changes.size()) + " | " +
         MarkdownText((s.unresolved_step ? UnresolvedNote(s) + "; " : "") + ResolutionNote(s, r.options)) + " |\n";
  }
  const auto all = SlowestFirst(r);
  if (!all.empty()) {
    m += "\n| series | from run | commit | ratio [95% CI] | p | recent |\n|---|---|---|---|---|---|\n";
    for (const auto& [s, c] : all) {
      m += "| " + MarkdownText(Key(s->series)) + " | " + std::to_string(c->index) + " (" + MarkdownText(c->run_id) +
           ")" + MarkdownText(Where(*c)) + " | " + MarkdownText(c->commit) + " | " + Fixed(c->ratio, 3) + " [" +
           Fixed(c->ratio_lo, 3) + ", " + Fixed(c->ratio_hi, 3) + "] | " + Fixed(c->p, 4) + " | " +
           (c->recent ? "yes" : "no") + MarkdownText(DisturbedNote(*c)) + " |\n";
    }
  }
  return m;
}

std::string CheckToText(const CheckResult& r) {
  // Keys, run ids, commits and reasons come from the history's files: Printable keeps each on its line,
  // ConsoleLines keeps any line from being a workflow command.
  std::string t;
  for (const SeriesCheck& s : r.series) {
    t += Name(s.verdict) + "  " + Printable(Key(s.series)) + ": " + std::to_string(s.series.runs.size()) + " runs, " +
         std::to_string(s.changes.size()) + " change point(s); " + ResolutionNote(s, r.options) + "\n";
    if (s.unresolved_step) t += "  " + Printable(UnresolvedNote(s)) + "\n";
    for (const Change& c : s.changes) {
      t += "  change: " + Printable(Describe(c)) + (c.recent ? " [recent]" : "") + Printable(DisturbedNote(c)) + "\n";
    }
  }
  t += "exit " + std::to_string(r.ExitCode()) + "\n";
  return ConsoleLines(t);
}

// Beyond this a check's cost is the history's, not a window's (docs/history.md, "Window").
constexpr int kMaxWindow = 100000;

Status ValidateCheckOptions(const CheckOptions& c) {
  if (!(c.min_effect > 0 && c.min_effect < 1)) {
    return InvalidArgument("--floor " + std::to_string(c.min_effect) + " (accepted: a fraction in (0, 1))");
  }
  if (c.last < 1) return InvalidArgument("--recent-runs " + std::to_string(c.last) + " (accepted: a run count >= 1)");
  if (!(c.change_points.alpha > 0 && c.change_points.alpha < 1)) {
    return InvalidArgument("--alpha " + std::to_string(c.change_points.alpha) + " (accepted: a fraction in (0, 1))");
  }
  if (c.change_points.permutations < 19 || c.change_points.permutations > 100000) {
    return InvalidArgument("--permutations " + std::to_string(c.change_points.permutations) +
                           " (accepted: 19 to 100000)");
  }
  if (c.change_points.min_segment < 2) {
    return InvalidArgument("--min-segment " + std::to_string(c.change_points.min_segment) +
                           " (accepted: 2 or more runs; 1 would let one spike be a change point)");
  }
  if (c.min_runs < 2 * c.change_points.min_segment) {
    return InvalidArgument("--min-runs " + std::to_string(c.min_runs) + " (accepted: at least twice --min-segment)");
  }
  if (c.window != 0 && (c.window < c.min_runs || c.window > kMaxWindow)) {
    return InvalidArgument("--window " + std::to_string(c.window) + " (accepted: 0 for every run, or " +
                           std::to_string(c.min_runs) + " (--min-runs) to " + std::to_string(kMaxWindow) + " runs)");
  }
  return OkStatus();
}

}  // namespace commbench::history
