// A point's axes as (name, value) text pairs in one fixed order: the CSV's axis columns and, for the bounded
// subset, Prometheus' labels. One place decides how each axis is spelled outside commbench.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "lib/model/point.h"

namespace commbench::exporting {

using Field = std::pair<std::string, std::string>;

// Every axis of the point, in the order docs/export.md lists them: backend, op, algo, dtype, reduce, size_bytes,
// count, groups, group_size, world, in_place, sync, concurrency, ranks_per_process, pin, cpus, device, stream, h2d,
// h2d_bytes, graph, phase. `size_bytes` is nccl-tests' size; `algo` the algorithm that ran.
std::vector<Field> AxisFields(const Point& p);

// ISO 8601 UTC ("2026-11-21T08:50:00Z", fractions allowed) to seconds since the epoch; false when it is not one.
bool ParseIsoTime(const std::string& text, double* seconds);

// Shortest text that reads back as the same double ("0.1", "3.5e-05"); `non_finite` for NaN and infinities.
std::string Number(double v, const std::string& non_finite);

}  // namespace commbench::exporting
