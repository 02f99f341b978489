// What `commbench compare` and `gate` write: the comparison as JSON (reports/comparison.schema.json), JUnit XML
// (one testcase per point; a failure carries both medians, the ratio and its interval), and a markdown summary for
// $GITHUB_STEP_SUMMARY. Pure: strings out. The JSON is also what the HTML comparison page embeds
// (lib/gate/comparison_html.h), hence each point's axes and the options it was decided with.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "lib/gate/compare.h"

namespace commbench::gate {

nlohmann::json ComparisonToJson(const Comparison& c, const std::string& base_path, const std::string& new_path);
std::string ComparisonToJunit(const Comparison& c);
std::string ComparisonToMarkdown(const Comparison& c);
// One line per point and the outcome, for the terminal.
std::string ComparisonToText(const Comparison& c);

}  // namespace commbench::gate
