// Text from files and flags in the HTML pages (the report, the comparison, the history trend): one rule for the
// markup and one for the JSON embedded in their <script> elements.
#pragma once

#include <string>
#include <string_view>

namespace commbench {

// `s` as HTML text or a quoted attribute value: &, <, >, " and ' as entities; bidi controls (which would reorder
// the page's text around them), other controls and bytes that are not UTF-8 as visible text as Printable spells
// them ("\u202e", printable.h).
std::string HtmlEscape(std::string_view s);

// JSON text with every bidi control written as a \uNNNN escape: the same JSON value, with no raw bidi control in
// the page's bytes; the page's script shows them as visible text (reports/page_kit.js, `visible`).
std::string EscapeBidiInJson(std::string_view json_text);

}  // namespace commbench
