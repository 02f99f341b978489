// A result as per-rank timelines in the Trace Event Format (JSON object form: {"traceEvents": [...]}), which
// Perfetto (ui.perfetto.dev, offline too) and chrome://tracing open. One process per rank (named with its rank,
// host and group), one thread per group; complete events (ph "X", microseconds) for each rank's communicator
// set-up and timed loop, and inside the loop one event per kept iteration (the samples the sweep kept: the first
// --sample-cap of each rank). A process 0 ("commbench") carries one event per point with the point's axes and
// statistics as args. Points lie end to end in file order; within a point every rank's loop starts once the
// slowest set-up is done. The result keeps each kept iteration's duration, not its start: they lie back to back
// from the loop's start, and the loop event spans the rank's timed loop (its wall time), so what the loop spent
// outside the operations (checks, barriers, waiting for other groups) shows as the loop's tail. A straggler's
// group shows as longer iteration lanes. The file does not record where each check or barrier fell, only how many
// checks each rank ran: they are args of its loop event.
#pragma once

#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "lib/core/status.h"
#include "lib/result/result_file.h"

namespace commbench::exporting {

// Where the trace goes, a piece at a time (a file being written).
using TraceSink = std::function<Status(std::string_view)>;
// A point's kept samples per rank (the result's own, or read from its sidecar one point at a time).
using PointSamples = std::function<StatusOr<std::vector<std::vector<double>>>(const result::PointResult&)>;

// Streams the trace event by event: memory holds one point's events, whatever the sample count.
Status WriteTrace(const result::ResultFile& file, const PointSamples& samples, const TraceSink& sink);

// The whole trace in memory, with the samples the points hold (for tests and small files).
nlohmann::json ToTraceEvents(const result::ResultFile& file);
std::string ToTraceText(const result::ResultFile& file);

}  // namespace commbench::exporting
