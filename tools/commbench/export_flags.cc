#include "tools/commbench/export_flags.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

#include "lib/core/atomic_file.h"
#include "lib/core/output_paths.h"
#include "lib/core/printable.h"
#include "lib/export/csv.h"
#include "lib/export/prometheus.h"
#include "lib/export/trace.h"
#include "lib/result/result_writer.h"

namespace commbench::cli {
namespace {

bool EndsWith(const std::string& s, const std::string& end) {
  return s.size() >= end.size() && s.compare(s.size() - end.size(), end.size(), end) == 0;
}

// What the exports render: the result file as written (so that they equal `commbench export` of it later), with
// the samples from its sidecar when they need them; `file` itself when there is no file to read.
StatusOr<result::ResultFile> Source(const result::ResultFile& file, const std::string& result_path, bool samples) {
  if (result_path.empty()) return file;
  ASSIGN_OR_RETURN(result::ResultFile written, result::LoadResultFile(result_path));
  if (samples) RETURN_IF_ERROR(result::LoadSamples(result_path, &written));
  return written;
}

Status Write(const std::string& path, const std::string& text) {
  RETURN_IF_ERROR(WriteFileAtomically(path, text));
  std::fprintf(stderr, "commbench: wrote %s\n", Printable(path).c_str());
  return OkStatus();
}

// The trace streams: the points' samples are read from the sidecar one point at a time and the events written as
// they are made, so its memory does not grow with the sample count.
Status WriteTraceFile(const result::ResultFile& source, const std::string& result_path, const std::string& path) {
  std::unique_ptr<result::SamplesReader> samples;
  if (!result_path.empty()) {
    ASSIGN_OR_RETURN(samples, result::SamplesReader::Open(result_path, source));
  }
  ASSIGN_OR_RETURN(AtomicFile out, AtomicFile::Create(path));
  RETURN_IF_ERROR(exporting::WriteTrace(
      source,
      [&samples](const result::PointResult& p) -> StatusOr<std::vector<std::vector<double>>> {
        if (samples) return samples->Read(p);
        return p.samples_us.per_rank;
      },
      [&out](std::string_view piece) { return out.Write(piece); }));
  RETURN_IF_ERROR(out.Commit());
  std::fprintf(stderr, "commbench: wrote %s\n", Printable(path).c_str());
  return OkStatus();
}

}  // namespace

void AddExportFlags(CLI::App* app, ExportFlags* f) {
  app->add_option("--prom", f->prom,
                  "Also write Prometheus textfile metrics here, a name ending in .prom (docs/export.md)");
  app->add_option("--csv", f->csv, "Also write a tidy CSV table here: one row per point (docs/export.md)");
  app->add_flag("--csv-repeats", f->csv_repeats, "--csv: one row per independent repeat of each point");
  app->add_flag("--csv-samples", f->csv_samples, "--csv: one row per kept per-iteration sample of each rank");
  app->add_option("--trace", f->trace,
                  "Also write per-rank timelines here: Trace Event Format JSON for Perfetto (docs/export.md)");
}

Status CheckExportFlags(const ExportFlags& f, const std::vector<std::string>& others) {
  if ((f.csv_repeats || f.csv_samples) && f.csv.empty()) {
    return InvalidArgument(std::string(f.csv_repeats ? "--csv-repeats" : "--csv-samples") +
                           " chooses the rows of --csv, which is not given (accepted: with --csv FILE)");
  }
  if (f.csv_repeats && f.csv_samples) {
    return InvalidArgument("--csv-repeats and --csv-samples both given (accepted: one of them: the rows of one table)");
  }
  if (!f.prom.empty() && !EndsWith(f.prom, ".prom")) {
    return InvalidArgument("--prom " + f.prom +
                           ": node_exporter's textfile collector reads only files ending in .prom (accepted: a "
                           "path ending in .prom)");
  }
  std::vector<NamedPath> mine = {{"--prom", f.prom}, {"--csv", f.csv}, {"--trace", f.trace}};
  std::vector<NamedPath> theirs;
  for (const std::string& other : others) theirs.push_back({"another input or output", other});
  RETURN_IF_ERROR(CheckOutputsApart(mine, theirs));
  for (const NamedPath& out : mine) {
    if (!out.path.empty()) RETURN_IF_ERROR(CheckWritableOutput(out.path));
  }
  return OkStatus();
}

Status WriteExports(const result::ResultFile& file, const std::string& result_path, const ExportFlags& f) {
  if (!f.any()) return OkStatus();
  ASSIGN_OR_RETURN(const result::ResultFile written, Source(file, result_path, f.needs_samples()));
  const result::ResultFile* source = &written;
  // The trace first: it reads the samples as it goes, and a sidecar that fails half-way must leave nothing written.
  if (!f.trace.empty()) RETURN_IF_ERROR(WriteTraceFile(*source, result_path, f.trace));
  if (!f.prom.empty()) RETURN_IF_ERROR(Write(f.prom, exporting::ToPrometheusText(*source)));
  if (!f.csv.empty()) {
    const exporting::CsvRows rows = f.csv_samples   ? exporting::CsvRows::kSamples
                                    : f.csv_repeats ? exporting::CsvRows::kRepeats
                                                    : exporting::CsvRows::kPoints;
    RETURN_IF_ERROR(Write(f.csv, exporting::ToCsv(*source, rows)));
  }
  return OkStatus();
}

}  // namespace commbench::cli
