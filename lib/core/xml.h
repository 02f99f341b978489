// Text for XML attributes and elements (the JUnit files of `compare`, `gate` and `accept`).
#pragma once

#include <string>

namespace commbench {

// `s` with &, <, > and " replaced by their entities.
inline std::string XmlEscape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace commbench
