// What `compare` and `gate` write for a comparison: the text on stdout, and optionally JSON, JUnit XML, the HTML
// page and a markdown summary (appended to --summary and to $GITHUB_STEP_SUMMARY when it is set).
#pragma once

#include <string>
#include <vector>

#include "lib/core/status.h"
#include "lib/gate/compare.h"
#include "tools/commbench/cli_fwd.h"

namespace commbench::cli {

struct ComparisonOutputs {
  std::string json, junit, html, summary;
};

// The flags `compare` and `gate` share: where the comparison goes and how a point is judged.
struct ComparisonFlags {
  ComparisonOutputs outputs;
  std::string min_effect = "0.05";            // a fraction, auto or auto:F
  std::vector<std::string> min_effect_below;  // SIZE=FRACTION
  bool allow_env_drift = false;
};
void AddComparisonFlags(CLI::App* cmd, ComparisonFlags* flags);
// The judging flags, checked, into `options` (its other fields kept); InvalidArgument names a bad value.
Status ApplyComparisonFlags(const ComparisonFlags& flags, gate::CompareOptions* options);

// Fails before any work when an output could not be written (not a regular file, unwritable directory); the
// summaries too (CheckSummaryOutputs).
Status CheckComparisonOutputs(const ComparisonOutputs& outputs);

// A markdown summary is appended to `summary` (--summary, "" for none) and to $GITHUB_STEP_SUMMARY when set:
// `compare`, `gate` and `accept` check both before anything runs (InvalidArgument naming which one) and report
// a failed append (a full disk) as an error.
Status CheckSummaryOutputs(const std::string& summary);
Status AppendSummaries(const std::string& summary, const std::string& markdown);
// Prints the comparison and writes the outputs; `base` and `now` name the two sides in the JSON.
Status EmitComparison(const gate::Comparison& c, const ComparisonOutputs& outputs, const std::string& base,
                      const std::string& now, const char* command);

}  // namespace commbench::cli
