// `commbench report RESULTS.json -o report.html`: renders a results file as the self-contained HTML report.
// Every bad input (missing or unreadable file, bad or truncated JSON, a schema this build cannot draw, an output
// path that cannot be written) gives one line on stderr naming the file, exit code 2, and no output file.
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "lib/report/html.h"
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
  const std::string& path = options.results;
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    std::fprintf(stderr, "commbench report: %s is a directory, not a results file\n", path.c_str());
    return 2;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "commbench report: cannot read %s: %s\n", path.c_str(), std::strerror(errno));
    return 2;
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    std::fprintf(stderr, "commbench report: cannot read %s: %s\n", path.c_str(), std::strerror(errno));
    return 2;
  }
  if (text.str().empty()) {
    std::fprintf(stderr, "commbench report: %s is empty (the sweep may have been killed before writing)\n",
                 path.c_str());
    return 2;
  }
  nlohmann::json result;
  try {
    result = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::parse_error& e) {
    // e.what() reads "[json.exception.parse_error.101] parse error at line 3, column 5: syntax error ...".
    std::string why = e.what();
    const size_t at = why.find("] ");
    if (at != std::string::npos) why = why.substr(at + 2);
    const bool truncated = e.byte >= text.str().size();
    std::fprintf(stderr, "commbench report: %s is not valid JSON (%s)%s\n", path.c_str(), why.c_str(),
                 truncated ? "; the file looks truncated" : "");
    return 2;
  }
  const std::string out = options.out.empty() ? DefaultOutput(path) : options.out;
  const Status status = report::WriteHtmlReport(result, out);
  if (!status.ok()) {
    if (status.code() == StatusCode::kInvalidArgument) {
      std::fprintf(stderr, "commbench report: %s: %s\n", path.c_str(), status.message().c_str());
    } else {
      std::fprintf(stderr, "commbench report: %s\n", status.message().c_str());
    }
    return 2;
  }
  std::printf("wrote %s\n", out.c_str());
  return 0;
}

}  // namespace

void SetupReport(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "report", "Render a results file (from `commbench sweep --out`) as one self-contained HTML report.");
  cmd->add_option("results", options->results, "results JSON file (schema_version 1)")->required();
  cmd->add_option("-o,--out", options->out, "HTML file to write (default: RESULTS with .html)");
  cmd->callback([options, exit_code] { *exit_code = RunReport(*options); });
}

}  // namespace commbench::cli
