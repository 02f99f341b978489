#include "lib/report/page.h"

#include <strings.h>

#include <nlohmann/json.hpp>

#include "lib/core/html_text.h"
#include "reports/report_assets.h"

namespace commbench::report {

using nlohmann::json;

// Inline <script> content ends at the first "</script" (any case), and "<!--" can switch the HTML parser into
// an escaped state. In JS both only occur inside string or regex literals, where "<\/" and "<\!" mean the same.
std::string EscapeInlineScript(const std::string& js) {
  std::string out;
  out.reserve(js.size());
  for (size_t i = 0; i < js.size(); ++i) {
    if (js[i] == '<' && i + 1 < js.size()) {
      if (js[i + 1] == '/' && js.size() - i >= 8 && strncasecmp(js.c_str() + i + 2, "script", 6) == 0) {
        out += "<\\/";
        ++i;
        continue;
      }
      if (js.compare(i, 4, "<!--") == 0) {
        out += "<\\!";
        ++i;
        continue;
      }
    }
    out += js[i];
  }
  return out;
}

StatusOr<std::string> FillTemplate(const std::string& tmpl, const std::map<std::string, std::string>& values) {
  std::string out;
  std::map<std::string, int> used;
  size_t pos = 0;
  while (true) {
    const size_t start = tmpl.find("@@", pos);
    if (start == std::string::npos) break;
    const size_t end = tmpl.find("@@", start + 2);
    if (end == std::string::npos) return Internal("report template: unterminated @@ slot");
    const std::string name = tmpl.substr(start + 2, end - start - 2);
    const auto it = values.find(name);
    if (it == values.end()) return Internal("report template: unknown slot @@" + name + "@@");
    out.append(tmpl, pos, start - pos);
    out += it->second;
    ++used[name];
    pos = end + 2;
  }
  out.append(tmpl, pos, std::string::npos);
  for (const auto& [name, unused] : values) {
    if (used[name] != 1) return Internal("report template: slot @@" + name + "@@ must occur exactly once");
  }
  return out;
}

std::string JsonForScript(const json& value) {
  const std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    // Outside strings JSON has none of these characters, so escaping them is always valid JSON.
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (c == '\xE2' && i + 2 < text.size() && text[i + 1] == '\x80' &&
               (text[i + 2] == '\xA8' || text[i + 2] == '\xA9')) {
      out += text[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";  // line/paragraph separators
      i += 2;
    } else {
      out += c;
    }
  }
  // No raw bidi control in the page's bytes either (they would reorder its source); the script shows them.
  return EscapeBidiInJson(out);
}

std::map<std::string, std::string> CommonSlots() {
  return {
      {"CSS", report_assets::ReportCss()},
      {"VEGA_JS", EscapeInlineScript(report_assets::VegaJs())},
      {"VEGA_LITE_JS", EscapeInlineScript(report_assets::VegaLiteJs())},
      {"VEGA_EMBED_JS", EscapeInlineScript(report_assets::VegaEmbedJs())},
      {"PAGE_KIT_JS", EscapeInlineScript(report_assets::PageKitJs())},
  };
}

}  // namespace commbench::report
