// What `commbench accept` writes from its verdict: the result file's `acceptance` block (reports/result.schema.json
// $defs/acceptance), JUnit XML (a testcase per check and per host; a failure carries the figures) and a markdown
// summary for $GITHUB_STEP_SUMMARY (verdict, suspects, failed checks). Pure: strings out.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "lib/accept/verdict.h"

namespace commbench::accept {

nlohmann::json AcceptanceToJson(const AcceptanceReport& r, const Profile& profile);
std::string AcceptanceToJunit(const AcceptanceReport& r);
std::string AcceptanceToMarkdown(const AcceptanceReport& r);
// One line per host for a scheduler that drains nodes: "HOST pass|fail KIND[,KIND...]" ("-" when none), the kinds
// as ReasonKind names (threshold, missing, error, outlier, link, straggler, drift).
std::string AcceptanceHostLines(const AcceptanceReport& r);

}  // namespace commbench::accept
