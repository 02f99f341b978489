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

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "lib/result/result_file.h"

namespace commbench::exporting {

nlohmann::json ToTraceEvents(const result::ResultFile& file);
std::string ToTraceText(const result::ResultFile& file);

}  // namespace commbench::exporting
