#include "lib/core/printable.h"

#include <cstdio>

namespace commbench {
namespace {

void AppendHex(const char* format, unsigned value, std::string* out) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), format, value);
  *out += buf;
}

}  // namespace

size_t DecodeUtf8(std::string_view s, size_t i, char32_t* cp) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  size_t n;
  char32_t v, min;
  if ((c & 0xe0) == 0xc0) {
    n = 2, v = c & 0x1f, min = 0x80;
  } else if ((c & 0xf0) == 0xe0) {
    n = 3, v = c & 0x0f, min = 0x800;
  } else if ((c & 0xf8) == 0xf0) {
    n = 4, v = c & 0x07, min = 0x10000;
  } else {
    return 0;  // a continuation byte or 0xf8-0xff
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    const unsigned char cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xc0) != 0x80) return 0;
    v = (v << 6) | (cc & 0x3f);
  }
  if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return 0;
  *cp = v;
  return n;
}

bool IsBidiControl(char32_t cp) {
  return cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

std::string PrintableWith(std::string_view text, const std::function<bool(char, std::string*)>& special) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if (special && special(static_cast<char>(c), &out)) {
      } else if (c < 0x20 || c == 0x7f) {
        AppendHex("\\x%02x", c, &out);
      } else {
        out += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    char32_t cp = 0;
    const size_t n = DecodeUtf8(text, i, &cp);
    if (n == 0) {
      AppendHex("\\x%02x", c, &out);
      ++i;
      continue;
    }
    if (cp <= 0x9f || IsBidiControl(cp) || cp == 0xfffe || cp == 0xffff) {
      AppendHex("\\u%04x", static_cast<unsigned>(cp), &out);
    } else {
      out.append(text, i, n);
    }
    i += n;
  }
  return out;
}

std::string Printable(std::string_view text) { return PrintableWith(text, nullptr); }

std::string ConsoleLines(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    const bool last = end == std::string_view::npos;
    if (last) end = text.size();
    std::string line = Printable(text.substr(start, end - start));
    const size_t first = line.find_first_not_of(" \t");
    if (first != std::string::npos && line.compare(first, 2, "::") == 0) line.replace(first, 1, "\\x3a");
    out += line;
    if (last) break;
    out += '\n';
    start = end + 1;
  }
  return out;
}

}  // namespace commbench
