// `commbench report RESULTS.json -o report.html`: renders a results file as the self-contained HTML report.
// Every bad input (missing or unreadable file, bad or truncated JSON, a file that breaks the schema, an output
// path that cannot be written) gives one line on stderr naming the file (and the field), exit code 2, and no
// output file.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>

#include "lib/core/output_paths.h"
#include "lib/core/printable.h"
#include "lib/report/html.h"
#include "lib/result/result_file.h"
#include "lib/result/result_writer.h"
#include "tools/commbench/command_line.h"
#include "tools/commbench/commands.h"

namespace commbench::cli {
namespace {

struct ReportOptions {
  std::string results;
  std::string out;  // default: RESULTS with .json replaced by .html
};

std::string DefaultOutput(const std::string& results) {
  const std::string ext = ".json";
  if (results.size() > ext.size() && results.compare(results.size() - ext.size(), ext.size(), ext) == 0) {
    return results.substr(0, results.size() - ext.size()) + ".html";
  }
  return results + ".html";
}

int RunReport(const ReportOptions& options) {
  const std::string out = options.out.empty() ? DefaultOutput(options.results) : options.out;
  const Status apart = CheckOutputsApart(
      {{"-o", out}}, {{"RESULTS", options.results}, {"its samples file", result::SamplesSidecarPath(options.results)}});
  if (!apart.ok()) {
    std::fprintf(stderr, "commbench: error: %s\n", apart.message().c_str());
    return 2;
  }
  auto result = result::LoadResultFile(options.results);
  if (!result.ok()) {
    std::fprintf(stderr, "commbench: error: %s\n", ScrubSecrets(result.status().message()).c_str());
    return 2;
  }
  const Status status = report::WriteHtmlReport(*result, out);
  if (!status.ok()) {
    std::fprintf(stderr, "commbench: error: %s\n", ScrubSecrets(status.message()).c_str());
    return 2;
  }
  std::printf("wrote %s\n", Printable(out).c_str());
  return 0;
}

}  // namespace

void SetupReport(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "report", "Render a results file (from `commbench sweep --out`) as one self-contained HTML report.");
  cmd->add_option("results", options->results, "results JSON file (schema_version 1 or 2)")->required();
  cmd->add_option("-o,--out", options->out, "HTML file to write (default: RESULTS with .html)");
  cmd->callback([options, exit_code] { *exit_code = RunReport(*options); });
}

}  // namespace commbench::cli
