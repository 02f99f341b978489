#include "lib/gate/comparison_html.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "lib/core/atomic_file.h"
#include "lib/core/html_text.h"
#include "lib/gate/calibration.h"
#include "lib/gate/outputs.h"
#include "lib/report/page.h"
#include "reports/comparison_assets.h"

namespace commbench::gate {

using report::CommonSlots;
using report::EscapeInlineScript;
using report::FillTemplate;
using report::JsonForScript;

namespace {

std::string Figure(double v, const char* format) {
  if (!std::isfinite(v)) return "n/a";
  char buf[48];
  std::snprintf(buf, sizeof(buf), format, v);
  return buf;
}

// Every disturbed repeat, re-run (replaced) or judged, with what disturbed it: each point's repeat records.
std::string DisturbedTable(const gate::Comparison& c) {
  int measured = 0, disturbed = 0, replaced = 0;
  std::string rows;
  for (const gate::PointComparison& p : c.points) {
    if (!p.sequential) continue;
    for (const gate::RepeatRecord& r : p.sequential->repeats) {
      ++measured;
      if (!r.disturbed) continue;
      ++disturbed;
      replaced += r.replaced;
      rows += "<tr><td>" + HtmlEscape(p.id) + "</td><td>" + HtmlEscape(r.side) + "</td><td>" + std::to_string(r.round) +
              "</td><td>" + (r.replaced ? "replaced (re-run)" : "judged (the re-run bound was reached)") + "</td><td>" +
              (r.migrations >= 0 ? std::to_string(r.migrations) : std::string("n/a")) + "</td><td>" +
              HtmlEscape(r.why) + "</td></tr>\n";
    }
  }
  std::string h = "<h3>Disturbed repeats</h3><p>" + std::to_string(disturbed) + " of " + std::to_string(measured) +
                  " repeats measured were disturbed; " + std::to_string(replaced) +
                  " of them were replaced by a re-run.</p>\n";
  if (rows.empty()) return h;
  return h +
         "<table id=\"disturbed\"><thead><tr><th>point</th><th>side</th><th>round</th><th>disturbed repeat</th>"
         "<th>migrations</th><th>why</th></tr></thead><tbody>\n" +
         rows + "</tbody></table>\n";
}

// A sequential gate's rounds, and per point the repeats it used, the change it could detect, its looks and its
// disturbed and re-run repeats: a static section, so that the page shows them whatever its script draws.
std::string SequentialSection(const gate::Comparison& c) {
  if (!c.options.sequential_run) return "";
  const gate::SequentialRun& r = *c.options.sequential_run;
  std::string h = "<section id=\"sequential\" aria-label=\"Sequential repeats\"><h2>Sequential repeats</h2><p>" +
                  std::to_string(r.rounds) + " rounds in " + Figure(r.elapsed_s, "%.0f") + " s (budget " +
                  (r.budget_s > 0 ? Figure(r.budget_s, "%.0f") + " s" : std::string("none")) + ", at most " +
                  std::to_string(r.planned_repeats) + " repeats a side, looks from " + std::to_string(r.first_look) +
                  " every " + std::to_string(r.look_every) + ", a disturbed repeat re-run at most " +
                  std::to_string(r.max_reruns) + " times per point and side): " + HtmlEscape(r.stopped_because) +
                  ".</p>\n<table><thead><tr><th>point</th><th>repeats base/new</th><th>detectable</th><th>looks</th>"
                  "<th>last boundary p</th><th>alpha spent</th><th>decided early</th><th>disturbed</th>"
                  "<th>re-run</th><th>what disturbed them</th></tr></thead><tbody>\n";
  for (const gate::PointComparison& p : c.points) {
    if (!p.sequential) continue;
    const gate::SequentialPoint& s = *p.sequential;
    std::string what;
    for (const std::string& d : s.disturbances) what += (what.empty() ? "" : "<br>") + HtmlEscape(d);
    h += "<tr><td>" + HtmlEscape(p.id) + "</td><td>" + std::to_string(p.base_us.size()) + "/" +
         std::to_string(p.now_us.size()) + "</td><td>" + Figure(100 * p.decision.detectable, "%.1f%%") + "</td><td>" +
         std::to_string(s.looks) + "</td><td>" + Figure(s.boundary_p, "%.2g") + "</td><td>" +
         Figure(s.spent_alpha, "%.2g") + "</td><td>" + (s.stopped ? "yes" : "no") + "</td><td>" +
         std::to_string(s.disturbed) + "</td><td>" + std::to_string(s.replaced) + "</td><td>" + what + "</td></tr>\n";
  }
  return h + "</tbody></table>\n" + DisturbedTable(c) + "</section>\n";
}

// The baseline's calibration (gate --calibrate): what this runner's noise lets each point detect.
std::string CalibrationSection(const gate::Comparison& c) {
  if (!c.options.calibration) return "";
  const gate::Calibration& k = *c.options.calibration;
  std::string ungateable;
  for (const gate::PointCalibration& p : k.points) {
    if (!p.gateable) ungateable += "<li>" + HtmlEscape(p.id) + ": " + HtmlEscape(gate::UngateableText(p)) + "</li>";
  }
  std::string h =
      "<section id=\"calibration\" aria-label=\"Calibration\"><h2>This runner's noise (the "
      "baseline's calibration, " +
      std::string(k.source == gate::CalibrationSource::kAa ? "A/A rounds: gate --calibrate"
                                                           : "the first baseline's own repeats") +
      ")</h2>" +
      (ungateable.empty()
           ? "<p>Every point is gateable here.</p>"
           : "<p><strong>Ungateable here</strong>, before any verdict below:</p><ul>" + ungateable + "</ul>") +
      "<p>A round of every point took " + Figure(k.round_s, "%.2f") + " s; budget " + Figure(k.budget_s, "%.0f") +
      " s.</p>\n<table><thead><tr><th>point</th>"
      "<th>spread of a repeat</th><th>repeats in the budget</th><th>detectable</th><th>floor</th>"
      "<th>false alarms expected</th><th>jobs of the build: spread, detectable</th><th>gateable here</th>"
      "</tr></thead><tbody>\n";
  for (const gate::PointCalibration& p : k.points) {
    const size_t jobs = p.job_medians_us.size() + 1;  // the baseline's own among them
    const std::string jobs_cell =
        std::to_string(jobs) + (jobs < gate::kLeastOtherJobs + 1 ? std::string(": too few to tell")
                                                                 : ": " + Figure(100 * p.job_spread, "%.1f%%") + ", " +
                                                                       Figure(100 * p.job_detectable, "%.1f%%"));
    std::string gateable = "yes";
    if (!p.gateable && p.detectable <= p.min_effect) {
      gateable = "no: its jobs cannot tell the floor (more jobs, or --ab)";
    } else if (!p.gateable) {
      gateable = "no: " + (p.repeats_needed > 0 ? std::to_string(p.repeats_needed) + " repeats a side needed"
                                                : std::string("no practical number of repeats"));
    }
    h += "<tr><td>" + HtmlEscape(p.id) + "</td><td>" + Figure(100 * p.spread, "%.1f%%") + "</td><td>" +
         std::to_string(p.budget_repeats) + "</td><td>" + Figure(100 * p.detectable, "%.1f%%") + "</td><td>" +
         Figure(100 * p.min_effect, "%.0f%%") + "</td><td>" + Figure(100 * p.false_alarm, "%.2f%%") + "</td><td>" +
         jobs_cell + "</td><td>" + gateable + "</td></tr>\n";
  }
  return h + "</tbody></table></section>\n";
}

// A gate against a stored baseline: has the host itself changed since the baseline's job?
std::string HostSection(const gate::Comparison& c) {
  if (!c.options.host) return "";
  const gate::HostShift& host = *c.options.host;
  std::string h =
      "<section id=\"host-shift\" aria-label=\"The host since the baseline\"><h2>The host since the "
      "baseline</h2><p>" +
      HtmlEscape(host.Describe()) + ".</p>";
  if (host.moved) {
    h += "<p><strong>The host moved</strong>: no timing verdict below holds, since a host's move does not touch "
         "every point alike. Store the baseline again on this runner, or gate with <code>--ab</code> (both sides in "
         "one job).</p>";
  } else if (!host.significant && (host.could_be_slower() || host.could_be_faster())) {
    h += "<p><strong>The host could have moved</strong>: a slowdown (or, on a host that could be faster, an "
         "unchanged point) the host's own move could explain is inconclusive. More rounds narrow the host's "
         "interval; <code>--ab</code> needs none of this.</p>";
  }
  return h + "</section>\n";
}

}  // namespace

StatusOr<std::string> RenderComparisonHtml(const gate::Comparison& c, const std::string& base, const std::string& now) {
  std::map<std::string, std::string> slots = CommonSlots();
  slots["COMPARISON_CSS"] = comparison_assets::ComparisonCss();
  // The same JSON as --json writes: the page is also a data file that the schema describes.
  slots["COMPARISON_JSON"] = JsonForScript(gate::ComparisonToJson(c, base, now));
  slots["COMPARISON_JS"] = EscapeInlineScript(comparison_assets::ComparisonJs());
  ASSIGN_OR_RETURN(std::string html, FillTemplate(comparison_assets::ComparisonHtml(), slots));
  const size_t main_end = html.find("</main>");  // the template's own: the data comes after it
  if (main_end != std::string::npos) html.insert(main_end, SequentialSection(c));
  // The calibration first: a point ungateable here is said so before it is judged.
  const size_t main_start = html.find("<main>");
  if (main_start != std::string::npos) html.insert(main_start + 6, CalibrationSection(c) + HostSection(c));
  return html;
}

Status WriteComparisonHtml(const gate::Comparison& c, const std::string& base, const std::string& now,
                           const std::string& path) {
  ASSIGN_OR_RETURN(std::string html, RenderComparisonHtml(c, base, now));
  return WriteFileAtomically(path, html);
}

}  // namespace commbench::gate
