#include "lib/history/trend_html.h"

#include <nlohmann/json.hpp>

#include "lib/core/atomic_file.h"
#include "lib/history/trend_assets.h"
#include "lib/report/page.h"

namespace commbench::history {

StatusOr<std::string> RenderTrendHtml(const CheckResult& r) {
  std::map<std::string, std::string> slots = report::CommonSlots();
  slots["TREND_JS"] = report::EscapeInlineScript(trend_assets::TrendJs());
  slots["DATA"] = report::JsonForScript(CheckToJson(r));
  return report::FillTemplate(trend_assets::TrendHtml(), slots);
}

Status WriteTrendHtml(const CheckResult& r, const std::string& path) {
  auto html = RenderTrendHtml(r);
  if (!html.ok()) return html.status();
  return WriteFileAtomically(path, *html);
}

}  // namespace commbench::history
