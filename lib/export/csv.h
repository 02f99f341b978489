// A result as a tidy CSV table (RFC 4180: comma-separated, CRLF line ends, fields quoted where they hold a comma,
// a quote or a line break) for pandas, R or a spreadsheet: one row per observation, one column per axis and per
// statistic, units in the column names (`_us`, `_gbps`, `_s`, `_bytes`). The columns are stable and listed in
// docs/export.md; new ones are only ever appended.
#pragma once

#include <string>

#include "lib/core/csv_cell.h"
#include "lib/result/result_file.h"

namespace commbench::exporting {

enum class CsvRows {
  kPoints,   // one row per point: its axes and statistics
  kRepeats,  // one row per independent repeat of each point: its axes, the repeat and its p50 and mean
  kSamples,  // one row per kept per-iteration sample: axes, rank, group, iteration, time (needs the samples)
};

std::string ToCsv(const result::ResultFile& file, CsvRows rows);

// Cells: CsvField (RFC 4180) and CsvText (text from files, OWASP's formula rule) in lib/core/csv_cell.h.
using commbench::CsvField;
using commbench::CsvText;

}  // namespace commbench::exporting
