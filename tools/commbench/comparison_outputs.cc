#include "tools/commbench/comparison_outputs.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "lib/core/atomic_file.h"
#include "lib/gate/comparison_html.h"
#include "lib/gate/outputs.h"

namespace commbench::cli {
namespace {

// Where a summary goes: --summary, then $GITHUB_STEP_SUMMARY; empty ones left out.
std::vector<std::string> SummaryPaths(const std::string& summary) {
  std::vector<std::string> paths;
  if (!summary.empty()) paths.push_back(summary);
  const char* step = std::getenv("GITHUB_STEP_SUMMARY");
  if (step != nullptr && *step != '\0') paths.push_back(step);
  return paths;
}

}  // namespace

Status CheckSummaryOutputs(const std::string& summary) {
  for (const std::string& path : SummaryPaths(summary)) {
    Status s = CheckAppendableOutput(path);
    if (!s.ok()) {
      const bool step = path != summary;
      return InvalidArgument((step ? "$GITHUB_STEP_SUMMARY: " : "--summary: ") + s.message());
    }
  }
  return OkStatus();
}

Status AppendSummaries(const std::string& summary, const std::string& markdown) {
  for (const std::string& path : SummaryPaths(summary)) RETURN_IF_ERROR(AppendToFile(path, markdown));
  return OkStatus();
}

Status CheckComparisonOutputs(const ComparisonOutputs& o) {
  for (const std::string* out : {&o.json, &o.junit, &o.html}) {
    if (!out->empty()) RETURN_IF_ERROR(CheckWritableOutput(*out));
  }
  return CheckSummaryOutputs(o.summary);
}

Status EmitComparison(const gate::Comparison& c, const ComparisonOutputs& o, const std::string& base,
                      const std::string& now, const char* /*command*/) {
  std::fputs(gate::ComparisonToText(c).c_str(), stdout);
  std::fflush(stdout);
  if (!o.json.empty())
    RETURN_IF_ERROR(WriteFileAtomically(
        o.json,
        gate::ComparisonToJson(c, base, now).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"));
  if (!o.junit.empty()) RETURN_IF_ERROR(WriteFileAtomically(o.junit, gate::ComparisonToJunit(c)));
  if (!o.html.empty()) RETURN_IF_ERROR(gate::WriteComparisonHtml(c, base, now, o.html));
  return AppendSummaries(o.summary, gate::ComparisonToMarkdown(c));
}

void AddComparisonFlags(CLI::App* cmd, ComparisonFlags* flags) {
  cmd->add_option("--json", flags->outputs.json, "write the comparison as JSON");
  cmd->add_option("--junit", flags->outputs.junit, "write JUnit XML (one testcase per point)");
  cmd->add_option("--html", flags->outputs.html,
                  "write one self-contained HTML page: the outcome and each ratio with its interval");
  cmd->add_option("--summary", flags->outputs.summary,
                  "append a markdown summary (also to $GITHUB_STEP_SUMMARY when set)");
  cmd->add_option("--min-effect", flags->min_effect,
                  "smallest relative change that counts as slower or faster; auto[:F]: what this job resolves per "
                  "point, at least F")
      ->capture_default_str();
  cmd->add_option("--min-effect-below", flags->min_effect_below,
                  "SIZE=FRACTION: another floor for points smaller than SIZE (e.g. 4K=0.1), repeatable");
  cmd->add_flag("--allow-env-drift", flags->allow_env_drift,
                "compare even when CPU, cores, versions or NCCL_/GLOO_/CUDA_/OMP_ variables differ");
}

Status ApplyComparisonFlags(const ComparisonFlags& flags, gate::CompareOptions* options) {
  options->allow_env_drift = flags.allow_env_drift;
  return gate::SetMinEffects(flags.min_effect, flags.min_effect_below, options);
}

}  // namespace commbench::cli
