#include "lib/core/markdown.h"

#include <cstring>

#include "lib/core/printable.h"

namespace commbench {

std::string MarkdownText(std::string_view s) {
  return PrintableWith(s, [](char c, std::string* out) {
    switch (c) {
      case '<':
        *out += "&lt;";
        return true;
      case '>':
        *out += "&gt;";
        return true;
      case '&':
        *out += "&amp;";
        return true;
      default:
        break;
    }
    if (c != '\0' && std::strchr("\\`*_[]~$|#", c) != nullptr) {
      *out += '\\';
      *out += c;
      return true;
    }
    return false;
  });
}

}  // namespace commbench
