// `commbench export RESULT.json --prom FILE | --csv FILE | --trace FILE`: a result file in the formats other tools
// read (docs/export.md). The samples the trace and --csv-samples need come from the result's samples sidecar.
// Every bad input (a missing or invalid result, a missing sidecar they need, no export asked for, a bad
// combination, an output that cannot be written) is one `commbench: error:` line, exit 2, and no file written.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>

#include "lib/result/result_file.h"
#include "lib/result/result_writer.h"
#include "tools/commbench/command_line.h"
#include "tools/commbench/commands.h"
#include "tools/commbench/export_flags.h"

namespace commbench::cli {
namespace {

struct ExportOptions {
  std::string results;
  ExportFlags exports;
};

int Fail(const Status& status) {
  std::fprintf(stderr, "commbench: error: %s\n", ScrubSecrets(status.message()).c_str());
  return 2;
}

int RunExport(const ExportOptions& o) {
  Status writable = CheckExportFlags(o.exports, {o.results, result::SamplesSidecarPath(o.results)});
  if (!writable.ok()) return Fail(writable);
  if (!o.exports.any()) {
    return Fail(InvalidArgument("nothing to export (accepted: --prom FILE.prom, --csv FILE, --trace FILE)"));
  }
  Status written = WriteExports(result::ResultFile{}, o.results, o.exports);  // reads the file (and its samples)
  return written.ok() ? 0 : Fail(written);
}

}  // namespace

void SetupExport(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<ExportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "export", "Write a result file as Prometheus textfile metrics, a tidy CSV table or per-rank timelines.");
  cmd->footer(
      "Examples:\n"
      "  commbench export r.json --prom /var/lib/prometheus/node-exporter/commbench.prom\n"
      "  commbench export r.json --csv r.csv                  # one row per point, for pandas\n"
      "  commbench export r.json --csv samples.csv --csv-samples\n"
      "  commbench export r.json --trace r.trace.json         # open in ui.perfetto.dev or chrome://tracing");
  cmd->add_option("results", o->results, "result JSON (from sweep, gate or accept --out)")->required();
  AddExportFlags(cmd, &o->exports);
  cmd->callback([o, exit_code] { *exit_code = RunExport(*o); });
}

}  // namespace commbench::cli
