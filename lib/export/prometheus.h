// A result in Prometheus' text exposition format, for node_exporter's textfile collector (a file ending in .prom,
// written by temp file + rename). Names follow Prometheus' conventions: `commbench_` prefix, base units
// (`_seconds`, `_bytes`, bandwidth in `_bytes_per_second`), `_info` gauges for the tool and the environment.
// Labels are bounded: a point's axes (backend, op, algo, dtype, groups, group_size, size, sync, phase, and the
// other axes only where they differ from their defaults), a host, an acceptance check or suspect; never a run id,
// a pid, a rank's timing or anything else that would make the series unbounded. Every metric is a gauge (or the
// op-time summary); the run's time is a gauge, as the textfile collector refuses sample timestamps.
// docs/export.md lists every metric.
#pragma once

#include <string>

#include "lib/result/result_file.h"

namespace commbench::exporting {

std::string ToPrometheusText(const result::ResultFile& file);

}  // namespace commbench::exporting
