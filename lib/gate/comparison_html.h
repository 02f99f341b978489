// The self-contained HTML comparison page (`commbench compare|gate --html`): the outcome and what its exit code
// means, the file-level problems, the environment differences, each point's ratio of medians with its 95 %
// interval against the minimum-effect band, before/after curves, and a table of every point. One file like the
// scaling report (page.h): reports/comparison.{html,css,js} and the chart library inlined, and the comparison's
// JSON (lib/gate/outputs.h, reports/comparison.schema.json) embedded, so it opens offline and is a data file too.
#pragma once

#include <string>

#include "lib/core/status.h"
#include "lib/gate/compare.h"

namespace commbench::gate {

// `base` and `now` name the two sides (paths, or gate --ab's variants) as in the JSON. Internal only when the
// page's template is broken (a build bug).
StatusOr<std::string> RenderComparisonHtml(const gate::Comparison& c, const std::string& base, const std::string& now);

// RenderComparisonHtml, written atomically: a temp file beside `path`, then rename; only a regular file (or a
// symlink's target) is replaced, and a failed write leaves no file behind.
Status WriteComparisonHtml(const gate::Comparison& c, const std::string& base, const std::string& now,
                           const std::string& path);

}  // namespace commbench::gate
