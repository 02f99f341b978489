// Test helper: RESULTS.json -> report.html through lib/report:html, for the browser test's fixtures. Users run
// `commbench report`, which adds the CLI's error handling on top of the same call.
#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>

#include "lib/report/html.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: render_html RESULTS.json OUT.html\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  const nlohmann::json result = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (result.is_discarded()) {
    std::fprintf(stderr, "render_html: %s: not valid JSON\n", argv[1]);
    return 2;
  }
  const commbench::Status status = commbench::report::WriteHtmlReport(result, argv[2]);
  if (!status.ok()) {
    std::fprintf(stderr, "render_html: %s: %s\n", argv[1], status.message().c_str());
    return 2;
  }
  return 0;
}
