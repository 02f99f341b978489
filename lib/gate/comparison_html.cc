#include "lib/gate/comparison_html.h"

#include <map>

#include <nlohmann/json.hpp>

#include "lib/core/atomic_file.h"
#include "lib/gate/outputs.h"
#include "lib/report/page.h"
#include "reports/comparison_assets.h"

namespace commbench::gate {

using report::CommonSlots;
using report::EscapeInlineScript;
using report::FillTemplate;
using report::JsonForScript;

StatusOr<std::string> RenderComparisonHtml(const gate::Comparison& c, const std::string& base, const std::string& now) {
  std::map<std::string, std::string> slots = CommonSlots();
  slots["COMPARISON_CSS"] = comparison_assets::ComparisonCss();
  // The same JSON as --json writes: the page is also a data file that the schema describes.
  slots["COMPARISON_JSON"] = JsonForScript(gate::ComparisonToJson(c, base, now));
  slots["COMPARISON_JS"] = EscapeInlineScript(comparison_assets::ComparisonJs());
  return FillTemplate(comparison_assets::ComparisonHtml(), slots);
}

Status WriteComparisonHtml(const gate::Comparison& c, const std::string& base, const std::string& now,
                           const std::string& path) {
  ASSIGN_OR_RETURN(std::string html, RenderComparisonHtml(c, base, now));
  return WriteFileAtomically(path, html);
}

}  // namespace commbench::gate
