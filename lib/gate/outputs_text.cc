// The comparison for readers (outputs.h): JUnit XML, the markdown summary, the terminal's lines.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "lib/core/markdown.h"
#include "lib/core/printable.h"
#include "lib/core/xml.h"
#include "lib/gate/calibration.h"
#include "lib/gate/outputs.h"
#include "lib/stats/summary.h"

namespace commbench::gate {
namespace {

std::string Fixed(double v, int decimals) {
  if (!std::isfinite(v)) return "n/a";
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
  return buf;
}

// A sequential gate's looks and disturbed repeats at this point, for a reader: "" when it had none.
std::string Sequence(const PointComparison& p) {
  if (!p.sequential) return "";
  const SequentialPoint& s = *p.sequential;
  std::string t = std::to_string(s.looks) + (s.looks == 1 ? " look" : " looks") + ", the last at p < " +
                  (s.boundary_p > 0 ? Fixed(s.boundary_p, 6) : std::string("(none: it could not stop)")) +
                  (s.stopped ? ", decided early" : "");
  if (s.disturbed > 0) {
    t += "; " + std::to_string(s.disturbed) + " disturbed repeats, " + std::to_string(s.replaced) + " re-run";
  }
  return t;
}

// The p the verdict rests on: the pairs' where they were the tighter evidence, else the rank test's.
double JudgedP(const PointComparison& p) { return p.decision.paired_used ? p.decision.paired.p : p.decision.test.p; }

// What a reader needs to check the verdict: both medians, the ratio and its interval, the test.
std::string Figures(const PointComparison& p) {
  return "base " + Fixed(Median(p.base_us), 2) + " us (" + std::to_string(p.base_us.size()) + " repeats), new " +
         Fixed(Median(p.now_us), 2) + " us (" + std::to_string(p.now_us.size()) + " repeats), ratio " +
         Fixed(p.decision.ratio, 3) + " [" + Fixed(p.decision.ratio_lo, 3) + ", " + Fixed(p.decision.ratio_hi, 3) +
         "], p = " + Fixed(JudgedP(p), 4) + ", detectable " +
         (std::isfinite(p.decision.detectable) ? Fixed(100 * p.decision.detectable, 1) + "%" : "n/a") +
         (p.sequential ? "; " + Sequence(p) : "");
}

bool Fails(const PointComparison& p) {
  return p.wrong_result || (p.problem.empty() && p.decision.change == Change::kSlower);
}
bool Undecided(const PointComparison& p) {
  return !p.wrong_result && (!p.problem.empty() || p.decision.change == Change::kInconclusive);
}

// Said before any verdict: the points the baseline's calibration finds ungateable here, and whether the host
// changed since the baseline's job (a gate against a stored baseline).
std::vector<std::string> BeforeVerdictLines(const Comparison& c) {
  std::vector<std::string> lines;
  if (c.options.calibration) {
    for (const PointCalibration& p : c.options.calibration->points) {
      if (!p.gateable) lines.push_back("calibration: ungateable here: " + p.id + ": " + UngateableText(p));
    }
  }
  if (c.options.host) lines.push_back("host: " + c.options.host->Describe());
  return lines;
}

// A sequential gate's rounds and each point's looks, under the table.
std::string SequentialMarkdown(const Comparison& c) {
  if (!c.options.sequential_run) return "";
  const SequentialRun& r = *c.options.sequential_run;
  std::string m = "\nSequential repeats: " + std::to_string(r.rounds) + " rounds in " + Fixed(r.elapsed_s, 0) +
                  " s (budget " + (r.budget_s > 0 ? Fixed(r.budget_s, 0) + " s" : std::string("none")) + ", at most " +
                  std::to_string(r.planned_repeats) + " repeats a side): " + MarkdownText(r.stopped_because) +
                  ".\n\n| point | repeats base/new | detectable | looks |\n|---|---|---|---|\n";
  for (const PointComparison& p : c.points) {
    m += "| " + MarkdownText(p.id) + " | " + std::to_string(p.base_us.size()) + "/" + std::to_string(p.now_us.size()) +
         " | " + (std::isfinite(p.decision.detectable) ? Fixed(100 * p.decision.detectable, 1) + "%" : "n/a") + " | " +
         MarkdownText(Sequence(p)) + " |\n";
  }
  return m;
}

}  // namespace

std::string ComparisonToJunit(const Comparison& c) {
  int failures = 0, skipped = 0;
  for (const PointComparison& p : c.points) {
    failures += Fails(p);
    skipped += Undecided(p);
  }
  std::string x =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites><testsuite name=\"commbench.compare\" tests=\"" +
      std::to_string(c.points.size() + c.problems.size()) + "\" failures=\"" +
      std::to_string(failures + c.problems.size()) + "\" skipped=\"" + std::to_string(skipped) + "\">\n";
  for (const PointComparison& p : c.points) {
    x += "<testcase classname=\"commbench.compare\" name=\"" + XmlEscape(p.id) + "\">";
    if (Fails(p)) {
      x += "<failure message=\"" + XmlEscape(VerdictOf(p) + ": " + Figures(p)) + "\">" + XmlEscape(ReasonOf(p)) +
           "</failure>";
    } else if (Undecided(p)) {
      // Inconclusive is not a pass: a skip names it so that a green check never hides it.
      x += "<skipped message=\"" + XmlEscape("inconclusive: " + ReasonOf(p)) + "\"/>";
    }
    x += "</testcase>\n";
  }
  for (const std::string& problem : c.problems) {
    x += "<testcase classname=\"commbench.compare\" name=\"file\"><failure message=\"" + XmlEscape(problem) +
         "\"/></testcase>\n";
  }
  x += "</testsuite></testsuites>\n";
  return x;
}

std::string ComparisonToMarkdown(const Comparison& c) {
  std::string m = "### commbench compare: " + Name(c.outcome) + "\n\n";
  for (const std::string& line : BeforeVerdictLines(c)) m += "- " + MarkdownText(line) + "\n";
  for (const std::string& p : c.problems) m += "- **" + MarkdownText(p) + "**\n";
  if (!c.environment.empty()) {
    m += "\nEnvironment differences:\n\n| key | base | new |\n|---|---|---|\n";
    for (const EnvDifference& d : c.environment) {
      m += "| " + MarkdownText(d.key) + " | " + MarkdownText(d.base) + " | " + MarkdownText(d.now) + " |\n";
    }
  }
  // The floor each point was judged at: what a reviewer knows was tested (with --min-effect auto, what this job
  // resolved there).
  m += "\n| point | verdict | base us | new us | ratio [95% CI] | p | tested to | why (unless unchanged) |\n"
       "|---|---|---|---|---|---|---|---|\n";
  for (const PointComparison& p : c.points) {
    const bool tested = p.problem.empty();
    m += "| " + MarkdownText(p.id) + " | " + VerdictOf(p) + " | " + Fixed(Median(p.base_us), 2) + " | " +
         Fixed(Median(p.now_us), 2) + " | " + Fixed(p.decision.ratio, 3) + " [" + Fixed(p.decision.ratio_lo, 3) + ", " +
         Fixed(p.decision.ratio_hi, 3) + "]" + (tested && p.decision.paired_used ? " paired" : "") + " | " +
         (tested ? Fixed(JudgedP(p), 4) : "n/a") + " | " +
         (tested ? "±" + Fixed(100 * p.decision.floor, 1) + "%" : "n/a") + " | " +
         (VerdictOf(p) == "unchanged" ? "" : MarkdownText(ReasonOf(p))) + " |\n";
  }
  return m + SequentialMarkdown(c);
}

std::string ComparisonToText(const Comparison& c) {
  // Ids, reasons and variables come from files: Printable keeps each on its line, ConsoleLines keeps any line
  // from being a workflow command.
  std::string t;
  for (const std::string& line : BeforeVerdictLines(c)) t += Printable(line) + "\n";
  for (const PointComparison& p : c.points) {
    t += VerdictOf(p) + "  " + Printable(p.id) + ": " + Printable(ReasonOf(p)) +
         (p.sequential ? " [" + Sequence(p) + "]" : "") + "\n";
  }
  if (c.options.sequential_run) {
    const SequentialRun& r = *c.options.sequential_run;
    t += "sequential: " + std::to_string(r.rounds) + " rounds in " + Fixed(r.elapsed_s, 0) +
         " s: " + Printable(r.stopped_because) + "\n";
  }
  for (const EnvDifference& d : c.environment) {
    t += "environment differs: " + Printable(d.key) + ": '" + Printable(d.base) + "' -> '" + Printable(d.now) + "'\n";
  }
  for (const std::string& p : c.problems) t += "problem: " + Printable(p) + "\n";
  t += "outcome: " + Name(c.outcome) + " (exit " + std::to_string(c.ExitCode()) + ")\n";
  return ConsoleLines(t);
}

}  // namespace commbench::gate
