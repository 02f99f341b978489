// The self-contained HTML scaling report: one file with the chart library, the page's CSS and JS, and the
// result JSON inlined, so that it opens offline (clusters are often air-gapped) and is also a data file.
#pragma once

#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "lib/core/status.h"
#include "lib/report/page.h"  // JsonForScript
#include "lib/result/result_file.h"

namespace commbench::report {

// Above this size the embedded result is slimmed (see EmbeddedResult): the chart library takes about 0.85 MB,
// and a report should stay under 2 MB.
inline constexpr size_t kEmbedBudgetBytes = 1'000'000;

// The copy of `result` that the page embeds: the result minus the raw per-iteration samples
// (points[].samples_us), which would make a default sweep's report several MB; every summary the charts use
// stays. When that is still over kEmbedBudgetBytes, per-rank summaries keep only p50/p99/mean and the points'
// numbers are rounded to 6 significant digits. `report.omitted` and `report.note` say what was left out.
// InvalidArgument when `result` is not an object of a schema_version this build reads, with a `points` array.
StatusOr<nlohmann::json> EmbeddedResult(const nlohmann::json& result);

// The whole page. InvalidArgument for a result the page cannot draw (see EmbeddedResult).
StatusOr<std::string> RenderHtml(const nlohmann::json& result);

// RenderHtml, written atomically: a temp file beside `path`, then rename, so a reader never sees half a report
// and a failed write leaves no file behind.
Status WriteHtmlReport(const nlohmann::json& result, const std::string& path);

// The same for a typed result: its serialisation (lib/result) is what the page embeds.
StatusOr<std::string> RenderHtml(const result::ResultFile& result);
Status WriteHtmlReport(const result::ResultFile& result, const std::string& path);

}  // namespace commbench::report
