// Text from a file as an error message may show it: control characters (a NUL, a newline) escaped as \xNN, so
// that every problem stays one line.
#pragma once

#include <cstdio>
#include <string>

namespace commbench {

inline std::string Printable(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace commbench
