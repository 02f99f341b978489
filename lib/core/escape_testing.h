// Hostile inputs for the escapers' tests: every byte, every bidi control, formula prefixes, forged workflow
// commands and terminal escapes.
#pragma once

#include <string>
#include <vector>

namespace commbench::testing {

inline std::string Utf8(char32_t cp) {
  std::string s;
  if (cp < 0x80) {
    s += static_cast<char>(cp);
  } else if (cp < 0x800) {
    s += static_cast<char>(0xc0 | (cp >> 6));
    s += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    s += static_cast<char>(0xe0 | (cp >> 12));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    s += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    s += static_cast<char>(0xf0 | (cp >> 18));
    s += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    s += static_cast<char>(0x80 | (cp & 0x3f));
  }
  return s;
}

inline std::vector<char32_t> BidiControls() {
  std::vector<char32_t> out = {0x061c, 0x200e, 0x200f};
  for (char32_t c = 0x202a; c <= 0x202e; ++c) out.push_back(c);
  for (char32_t c = 0x2066; c <= 0x2069; ++c) out.push_back(c);
  return out;
}

inline std::vector<std::string> HostileInputs() {
  std::vector<std::string> out;
  for (int b = 0; b < 256; ++b) {
    out.push_back(std::string(1, static_cast<char>(b)));
    out.push_back("a" + std::string(1, static_cast<char>(b)) + "b");
  }
  for (char32_t c = 0x80; c <= 0x9f; ++c) out.push_back("x" + Utf8(c) + "y");
  for (char32_t c : BidiControls()) out.push_back("host" + Utf8(c) + "evil");
  for (const char* s : {"=1+2",
                        "+1",
                        "-1",
                        "@SUM(A1)",
                        "\t=1",
                        "\r=1",
                        "a\n::error::forged",
                        "\x1b[31mred",
                        "\xc2\x9b"
                        "31m",
                        "\xed\xa0\x80",
                        "\xef\xbf\xbe",
                        "\xef\xbf\xbf",
                        "\xc0\xaf",
                        "\xf4\x90\x80\x80",
                        "\xe2\x82",
                        "<script>alert(1)</script>",
                        "a|b",
                        "[x](http://e)",
                        "`code`",
                        "**b**",
                        "&amp;",
                        "'\"",
                        "\\",
                        "$x$",
                        "~~s~~",
                        "\x01\x02\x1f\x7f"}) {
    out.push_back(s);
  }
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  out.push_back(all);
  return out;
}

// Whether `s` is plain visible text: valid UTF-8 (checked here without DecodeUtf8, so the two rules check each
// other) with no C0, DEL, C1 or bidi control and no U+FFFE/U+FFFF.
inline bool PlainVisible(const std::string& s, std::string* why) {
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return *why = "bad lead byte at " + std::to_string(i), false;
    char32_t cp = n == 1 ? c : n == 2 ? c & 0x1f : n == 3 ? c & 0x0f : c & 0x07;
    for (size_t k = 1; k < n; ++k) {
      const unsigned char cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xc0) != 0x80) return *why = "bad continuation at " + std::to_string(i + k), false;
      cp = (cp << 6) | (cc & 0x3f);
    }
    const char32_t min = n == 1 ? 0 : n == 2 ? 0x80 : n == 3 ? 0x800 : 0x10000;
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return *why = "invalid code point", false;
    if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) return *why = "control at " + std::to_string(i), false;
    for (char32_t b : BidiControls()) {
      if (cp == b) return *why = "bidi control at " + std::to_string(i), false;
    }
    if (cp == 0xfffe || cp == 0xffff) return *why = "noncharacter at " + std::to_string(i), false;
    i += n;
  }
  return true;
}

}  // namespace commbench::testing
