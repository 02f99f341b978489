#include "lib/report/html.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "lib/core/atomic_file.h"
#include "lib/report/page.h"
#include "reports/report_assets.h"

namespace commbench::report {
namespace {

using nlohmann::json;

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
  if (embedded.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).size() > kEmbedBudgetBytes) {
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

StatusOr<std::string> RenderHtml(const json& result) {
  ASSIGN_OR_RETURN(json embedded, EmbeddedResult(result));
  std::map<std::string, std::string> slots = CommonSlots();
  slots["RESULT_JSON"] = JsonForScript(embedded);
  slots["ACCEPTANCE_JS"] = EscapeInlineScript(report_assets::AcceptanceJs());
  slots["TRAFFIC_JS"] = EscapeInlineScript(report_assets::TrafficJs());
  slots["REPORT_JS"] = EscapeInlineScript(report_assets::ReportJs());
  return FillTemplate(report_assets::TemplateHtml(), slots);
}

Status WriteHtmlReport(const json& result, const std::string& path) {
  ASSIGN_OR_RETURN(std::string html, RenderHtml(result));
  return WriteFileAtomically(path, html);
}

StatusOr<std::string> RenderHtml(const result::ResultFile& result) {
  return RenderHtml(result::ResultFileToJson(result));
}

Status WriteHtmlReport(const result::ResultFile& result, const std::string& path) {
  return WriteHtmlReport(result::ResultFileToJson(result), path);
}

}  // namespace commbench::report
