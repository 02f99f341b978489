// What the self-contained pages share (the scaling report, html.h; the comparison, comparison_html.h): template
// slots, text that is safe inside inline <script> elements, and the chart library and stylesheet they inline.
#pragma once

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "lib/core/status.h"

namespace commbench::report {

// Fills @@NAME@@ slots in one pass, so text inside a substituted asset is never scanned again. Every slot in
// `values` must occur exactly once and the template must hold no other slot: a mismatch is a build bug
// (Internal).
StatusOr<std::string> FillTemplate(const std::string& tmpl, const std::map<std::string, std::string>& values);

// JS source that is safe inside an inline <script>: "</script" and "<!--" are written "<\/script" and "<\!--",
// which mean the same inside the string or regex literals where JS can hold them.
std::string EscapeInlineScript(const std::string& js);

// JSON text that is safe inside <script type="application/json">: '<', '>', '&' and U+2028/U+2029 are written
// as \uXXXX escapes, so no "</script>" or "<!--" can end or change the script element; so are bidi controls
// (EscapeBidiInJson, lib/core/html_text.h: page_kit.js shows them as visible text); invalid UTF-8 in strings
// becomes U+FFFD instead of failing.
std::string JsonForScript(const nlohmann::json& value);

// The slots every page has: CSS (reports/report.css), the chart library (third_party/vega) in VEGA_JS,
// VEGA_LITE_JS and VEGA_EMBED_JS, and the helpers both pages share (reports/page_kit.js) in PAGE_KIT_JS; the
// scripts escaped for inline use.
std::map<std::string, std::string> CommonSlots();

}  // namespace commbench::report
