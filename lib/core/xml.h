// Text for XML attributes and elements (the JUnit files of `compare`, `gate`, `accept` and `history check`).
#pragma once

#include <string>
#include <string_view>

namespace commbench {

// `s` as well-formed XML 1.0 character data, for an attribute value or an element: &, <, >, " and ' as entities;
// tab, newline and CR as character references (an attribute keeps them); every character XML 1.0 forbids or a
// reader should see (other C0 controls, C1 and bidi controls, U+FFFE/U+FFFF, bytes that are not UTF-8) written as
// visible text as Printable spells it (printable.h: "\x1b", "\u202e").
std::string XmlEscape(std::string_view s);

}  // namespace commbench
