// Text from files and flags (commits, run ids, host names, file names) as a reader must see it, never as a
// terminal, a CI log or a renderer would act on it: the one rule every output's escaper builds on.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace commbench {

// One UTF-8 code point at s[i]: its length (1-4) and value, or 0 for an invalid sequence (a stray or truncated
// byte, an overlong form, a surrogate, beyond U+10FFFF).
size_t DecodeUtf8(std::string_view s, size_t i, char32_t* cp);

// Code points that reorder the text around them (Trojan Source): U+061C, U+200E/F, U+202A-E, U+2066-9.
bool IsBidiControl(char32_t cp);

// `text` with everything that is not plain visible text escaped: C0 controls (a newline too) and DEL as \xNN, C1
// controls (U+0080-U+009F, the 8-bit CSI among them), bidi controls and the noncharacters U+FFFE/U+FFFF as
// \uNNNN, bytes that are not UTF-8 as \xNN. So every problem stays one line and no ESC sequence reaches a
// terminal.
std::string Printable(std::string_view text);

// Printable with a format's own rule first: `special(c, out)` may append its spelling of the ASCII character `c`
// (a markdown metacharacter, an XML entity) and return true; otherwise the rule above applies.
std::string PrintableWith(std::string_view text, const std::function<bool(char, std::string*)>& special);

// A console text commbench composed of lines (user strings inside already Printable): each line escaped as
// Printable does except its line breaks, and a line that would start with "::" (after blanks) written with
// "\x3a" for its first ':', so no line can be a GitHub Actions workflow command (::error, ::add-mask, ...).
std::string ConsoleLines(std::string_view text);

}  // namespace commbench
