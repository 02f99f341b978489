// Strings that enter a JSON document (arguments, environment variables, host and file names) as valid UTF-8:
// nlohmann::json refuses to write anything else (type_error 316), which would lose a whole measured run.
#pragma once

#include <string>

namespace commbench {

// `text` unchanged when it is valid UTF-8; otherwise each byte that is not part of a well-formed sequence
// (a stray 0x80-0xbf, 0xc0/0xc1, 0xf5-0xff, a truncated sequence, an overlong form, a surrogate, a code point
// beyond U+10FFFF) becomes the four visible characters `\xNN`. Linear in the length.
std::string ValidUtf8OrEscaped(std::string text);

// Whether `text` is well-formed UTF-8 (the same rules).
bool IsValidUtf8(const std::string& text);

}  // namespace commbench
