// Where a gate writes, checked before any repeat runs: every output writable, none naming another, the baseline,
// the config or a file inside the history, and a baseline the gate will write never reached through a link.
#include <string>

#include "lib/core/atomic_file.h"
#include "lib/core/output_paths.h"
#include "lib/core/store_dir.h"
#include "lib/result/result_writer.h"
#include "tools/commbench/comparison_outputs.h"
#include "tools/commbench/export_flags.h"
#include "tools/commbench/gate.h"

namespace commbench::cli {

Status CheckGateOutputs(const GateOptions& o) {
  const ComparisonOutputs& out = o.flags.outputs;
  Status writable =
      CheckOutputsApart({{"--out", o.out},
                         {"--out's samples file", result::SamplesSidecarPath(o.out)},
                         {"--out-a", o.out_a},
                         {"--json", out.json},
                         {"--junit", out.junit},
                         {"--html", out.html},
                         {"--summary", out.summary},
                         {"--prom", o.exports.prom},
                         {"--csv", o.exports.csv},
                         {"--trace", o.exports.trace}},
                        {{"--baseline", o.baseline}, {"--config", o.config}}, {{"the history", o.history}});
  if (writable.ok() && (o.update_baseline || o.calibrate)) writable = CheckStoreFileTarget(o.baseline);
  if (writable.ok()) writable = CheckComparisonOutputs(o.flags.outputs);
  if (writable.ok()) writable = CheckWritableOutput(o.out);
  if (writable.ok()) writable = CheckWritableOutput(result::SamplesSidecarPath(o.out));
  if (writable.ok())
    writable = CheckExportFlags(o.exports, {o.out, result::SamplesSidecarPath(o.out), o.out_a, o.baseline});
  return writable;
}

}  // namespace commbench::cli
