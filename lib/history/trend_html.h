// The trend page (`history check --html`): one offline HTML file with the report's look (reports/report.css, the
// chart library inlined): per series, the runs over time with change points marked and each segment's level and
// noise band, the latest run highlighted; a table of change points, slowest first. The data is CheckToJson's.
#pragma once

#include <string>

#include "lib/core/status.h"
#include "lib/history/check.h"

namespace commbench::history {

StatusOr<std::string> RenderTrendHtml(const CheckResult& r);
Status WriteTrendHtml(const CheckResult& r, const std::string& path);

}  // namespace commbench::history
