// Text from files and flags inside the markdown summaries ($GITHUB_STEP_SUMMARY, --summary) of `compare`, `gate`,
// `accept` and `history check`.
#pragma once

#include <string>
#include <string_view>

namespace commbench {

// `s` as literal text in a GitHub-flavoured markdown paragraph, list item or table cell: the metacharacters that
// could start emphasis, code, links, math or strike-through (\ ` * _ [ ] ~ $) and the table pipe backslash-escaped;
// <, > and & as entities (GitHub renders HTML in summaries); line breaks, controls, bidi controls and bytes that
// are not UTF-8 as visible text as Printable spells them (printable.h), so no cell or row ends early. Not for use
// inside a code span, where backslashes and entities are shown as they are.
std::string MarkdownText(std::string_view s);

}  // namespace commbench
