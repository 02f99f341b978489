#include "lib/core/html_text.h"

#include <cstdio>

#include "lib/core/printable.h"

namespace commbench {

std::string HtmlEscape(std::string_view s) {
  return PrintableWith(s, [](char c, std::string* out) {
    switch (c) {
      case '&':
        *out += "&amp;";
        return true;
      case '<':
        *out += "&lt;";
        return true;
      case '>':
        *out += "&gt;";
        return true;
      case '"':
        *out += "&quot;";
        return true;
      case '\'':
        *out += "&#39;";
        return true;
      default:
        return false;
    }
  });
}

std::string EscapeBidiInJson(std::string_view json_text) {
  std::string out;
  out.reserve(json_text.size());
  for (size_t i = 0; i < json_text.size();) {
    char32_t cp = 0;
    const size_t n = DecodeUtf8(json_text, i, &cp);
    // Outside strings JSON holds only ASCII, so a bidi control is always inside a string, where \u is valid.
    if (n > 1 && IsBidiControl(cp)) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", static_cast<unsigned>(cp));
      out += buf;
    } else {
      out.append(json_text, i, n == 0 ? 1 : n);
    }
    i += n == 0 ? 1 : n;
  }
  return out;
}

}  // namespace commbench
