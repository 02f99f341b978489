// The three export flags that `sweep`, `gate`, `accept` and `export` share: --prom FILE (Prometheus textfile, must
// end in .prom), --csv FILE (tidy CSV; --csv-repeats or --csv-samples change its rows), --trace FILE (Trace Event
// Format). Checked with the other outputs before any rank starts; written as every output is (temporary file,
// rename, only over a regular file). docs/export.md describes the files.
#pragma once

#include <string>
#include <vector>

#include "lib/core/status.h"
#include "lib/result/result_file.h"
#include "tools/commbench/cli_fwd.h"

namespace commbench::cli {

struct ExportFlags {
  std::string prom, csv, trace;
  bool csv_repeats = false, csv_samples = false;

  bool any() const { return !prom.empty() || !csv.empty() || !trace.empty(); }
  // Whether writing them needs every raw sample in memory (--csv-samples' rows; the trace reads them a point at a
  // time).
  bool needs_samples() const { return !csv.empty() && csv_samples; }
};

void AddExportFlags(CLI::App* app, ExportFlags* flags);

// InvalidArgument for a bad combination (--csv-repeats without --csv, both row flags, a --prom that does not end
// in .prom, an export naming another output of the command) or a path that cannot be written. `others` are the
// command's other outputs.
Status CheckExportFlags(const ExportFlags& flags, const std::vector<std::string>& others);

// Writes each export of the result file at `result_path` (what `file` was written to: the exports equal `commbench
// export` of it), with the raw samples from its sidecar where they are needed. `result_path` "": `file` itself, as it
// is (without samples the trace shows each rank's loop without its iterations). Prints "commbench: wrote FILE".
Status WriteExports(const result::ResultFile& file, const std::string& result_path, const ExportFlags& flags);

}  // namespace commbench::cli
