#include "lib/core/xml.h"

#include "lib/core/printable.h"

namespace commbench {

std::string XmlEscape(std::string_view s) {
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
        *out += "&apos;";
        return true;
      case '\t':
        *out += "&#9;";
        return true;
      case '\n':
        *out += "&#10;";
        return true;
      case '\r':
        *out += "&#13;";
        return true;
      default:
        return false;
    }
  });
}

}  // namespace commbench
