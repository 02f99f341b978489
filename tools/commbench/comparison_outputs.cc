#include "tools/commbench/comparison_outputs.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "lib/core/atomic_file.h"
#include "lib/gate/outputs.h"
#include "lib/report/comparison_html.h"

namespace commbench::cli {
namespace {

Status AppendTo(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::app);
  out << text;
  out.close();
  return out ? OkStatus() : Unavailable("cannot append to " + path);
}

}  // namespace

Status CheckComparisonOutputs(const ComparisonOutputs& o) {
  for (const std::string* out : {&o.json, &o.junit, &o.html}) {
    if (!out->empty()) RETURN_IF_ERROR(CheckWritableOutput(*out));
  }
  return OkStatus();
}

Status EmitComparison(const gate::Comparison& c, const ComparisonOutputs& o, const std::string& base,
                      const std::string& now, const char* command) {
  std::fputs(gate::ComparisonToText(c).c_str(), stdout);
  std::fflush(stdout);
  if (!o.json.empty()) RETURN_IF_ERROR(WriteFileAtomically(o.json, gate::ComparisonToJson(c, base, now).dump(2) + "\n"));
  if (!o.junit.empty()) RETURN_IF_ERROR(WriteFileAtomically(o.junit, gate::ComparisonToJunit(c)));
  if (!o.html.empty()) RETURN_IF_ERROR(report::WriteComparisonHtml(c, base, now, o.html));
  const std::string markdown = gate::ComparisonToMarkdown(c);
  for (const std::string& path : {o.summary, std::string(std::getenv("GITHUB_STEP_SUMMARY") ?: "")}) {
    if (path.empty()) continue;
    Status s = AppendTo(path, markdown);
    if (!s.ok()) std::fprintf(stderr, "commbench %s: %s\n", command, s.message().c_str());
  }
  return OkStatus();
}

}  // namespace commbench::cli
