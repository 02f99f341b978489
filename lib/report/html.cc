#include "lib/report/html.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "lib/core/atomic_file.h"
#include "reports/report_assets.h"

namespace commbench::report {
namespace {

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

// Fills @@NAME@@ slots in one pass, so text inside a substituted asset is never scanned again. Every slot in
// `values` must occur exactly once and the template must hold no other slot: a mismatch is a build bug.
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

// Rounds every floating-point number under `value` to 6 significant digits: far beyond what a chart or a
// tooltip shows, and about half the characters of nlohmann's shortest round-trip form of computed statistics.
void RoundFloats(json& value) {
  if (value.is_number_float()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", value.get<double>());
    value = std::strtod(buf, nullptr);
  } else if (value.is_structured()) {
    for (json& child : value) RoundFloats(child);
  }
}

// Large sweeps: per-rank summaries keep what the heat map and the tooltips use.
void SlimPerRank(json& point) {
  auto per_rank = point.find("per_rank");
  if (per_rank == point.end() || !per_rank->is_array()) return;
  for (json& rank : *per_rank) {
    auto time = rank.find("time_us");
    if (time == rank.end() || !time->is_object()) continue;
    json kept = json::object();
    for (const char* key : {"p50", "p99", "mean"}) {
      if (time->contains(key)) kept[key] = (*time)[key];
    }
    *time = std::move(kept);
  }
}

}  // namespace

StatusOr<json> EmbeddedResult(const json& result) {
  if (!result.is_object()) return InvalidArgument("the result is not a JSON object");
  const auto version = result.find("schema_version");
  if (version == result.end()) return InvalidArgument("no schema_version (not a commbench result file?)");
  if (!version->is_number_integer() || version->get<long long>() < result::kOldestSchemaVersion ||
      version->get<long long>() > result::kSchemaVersion) {
    return InvalidArgument("unsupported schema_version " + version->dump() + " (this commbench reads " +
                           std::to_string(result::kOldestSchemaVersion) + " to " +
                           std::to_string(result::kSchemaVersion) + ")");
  }
  const auto points = result.find("points");
  if (points == result.end() || !points->is_array()) return InvalidArgument("no points array");
  json embedded = result;
  bool dropped_samples = false;
  for (json& point : embedded["points"]) {
    if (!point.is_object()) return InvalidArgument("points[] holds a non-object");
    dropped_samples |= point.erase("samples_us") > 0;
  }
  json omitted = json::array();
  std::string note;
  if (dropped_samples) {
    omitted.push_back("points[].samples_us");
    note = "raw per-iteration samples are in the results file, not in this page";
  }
  if (embedded.dump().size() > kEmbedBudgetBytes) {
    for (json& point : embedded["points"]) {
      SlimPerRank(point);
      RoundFloats(point);
    }
    omitted.push_back("points[].per_rank[].time_us except p50, p99, mean");
    note += std::string(note.empty() ? "" : "; ") +
            "a large sweep: per-rank summaries are cut to p50/p99/mean and point numbers rounded to 6 significant "
            "digits here; the results file has them in full";
  }
  if (!omitted.empty()) embedded["report"] = {{"omitted", omitted}, {"note", note}};
  return embedded;
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
  return out;
}

StatusOr<std::string> RenderHtml(const json& result) {
  ASSIGN_OR_RETURN(json embedded, EmbeddedResult(result));
  return FillTemplate(report_assets::TemplateHtml(),
                      {
                          {"CSS", report_assets::ReportCss()},
                          {"RESULT_JSON", JsonForScript(embedded)},
                          {"VEGA_JS", EscapeInlineScript(report_assets::VegaJs())},
                          {"VEGA_LITE_JS", EscapeInlineScript(report_assets::VegaLiteJs())},
                          {"VEGA_EMBED_JS", EscapeInlineScript(report_assets::VegaEmbedJs())},
                          {"ACCEPTANCE_JS", EscapeInlineScript(report_assets::AcceptanceJs())},
                          {"REPORT_JS", EscapeInlineScript(report_assets::ReportJs())},
                      });
}

Status WriteHtmlReport(const json& result, const std::string& path) {
  ASSIGN_OR_RETURN(std::string html, RenderHtml(result));
  return WriteFileAtomically(path, html);
}

StatusOr<std::string> RenderHtml(const result::ResultFile& result) { return RenderHtml(result::ResultFileToJson(result)); }

Status WriteHtmlReport(const result::ResultFile& result, const std::string& path) {
  return WriteHtmlReport(result::ResultFileToJson(result), path);
}

}  // namespace commbench::report
