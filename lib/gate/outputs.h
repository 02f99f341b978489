// What `commbench compare` and `gate` write: the comparison as JSON (reports/comparison.schema.json), JUnit XML
// (one testcase per point; a failure carries both medians, the ratio and its interval), and a markdown summary for
// $GITHUB_STEP_SUMMARY. Pure: strings out. The JSON is also what the HTML comparison page embeds
// (lib/gate/comparison_html.h), hence each point's axes and the options it was decided with.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "lib/gate/compare.h"

namespace commbench::gate {

// The verdict a reader sees ("wrong result", "inconclusive" for a point judged by its problem, else the change)
// and why, in one sentence with the figures.
std::string VerdictOf(const PointComparison& p);
std::string ReasonOf(const PointComparison& p);

// outputs.cc
// options.host_shift of the comparison JSON.
nlohmann::json HostShiftToJson(const HostShift& h);

nlohmann::json ComparisonToJson(const Comparison& c, const std::string& base_path, const std::string& new_path);
// outputs_text.cc
std::string ComparisonToJunit(const Comparison& c);
std::string ComparisonToMarkdown(const Comparison& c);
// One line per point and the outcome, for the terminal.
std::string ComparisonToText(const Comparison& c);

}  // namespace commbench::gate
