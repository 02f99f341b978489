// The flags that describe a sweep, shared by `sweep` and `run`. List and named flags stay strings until ToSpec
// parses them with the error messages of lib/core/ranges.h and lib/core/axes.h (exit code 2).
#pragma once

#include <string>
#include <vector>

#include "lib/core/output_paths.h"
#include "lib/core/status.h"
#include "lib/model/spec.h"
#include "tools/commbench/cli_fwd.h"
#include "tools/commbench/export_flags.h"

namespace commbench::cli {

struct SweepFlags {
  std::string backends = "gloo";
  std::string ops = "allreduce";
  std::string algos = "auto";
  std::string dtypes = "f32";
  std::string reduces = "sum";
  std::string sizes = "400,64K,1M";
  std::string groups = "1..8";
  std::string group_sizes = "2";
  std::string in_place = "auto";
  std::string syncs = "none";
  std::string concurrencies = "concurrent";
  std::string ranks_per_process = "1";
  std::string pins = "none";
  std::vector<std::string> cpus;
  std::string streams = "dedicated";
  std::string h2ds = "none";
  std::string h2d_bytes = "0";
  std::vector<std::string> time_budget_above;  // SIZE=SECONDS
  std::string graphs = "off";
  std::string launcher = "local";
  std::string group_by = "consecutive";
  SweepSpec spec;  // the other scalar settings are bound directly
};

struct OutputFlags {
  std::string out = "commbench-results.json";
  std::string html;
  bool quiet = false;
  bool explain = false;
  // `sweep` only (AddOutputFlags with first_run): skip the A/Bs and the HTML report it runs and writes by default.
  bool no_explain = false;
  bool no_html = false;
  ExportFlags exports;  // --prom, --csv, --trace where the command adds them (AddExportFlags)
};

// Where a rank started by a launcher (srun, mpirun, torchrun) meets the others (SPMD mode, lib/launch/spmd.h).
struct SpmdFlags {
  std::string rendezvous;  // file:/shared/dir or redis://[:PASSWORD@]HOST[:PORT][/DB]; may hold a password
  int rank = -1;           // -1: from the launcher's environment
  int world = -1;
  std::string run_id;  // "": from the launcher's job variables
};

void AddSweepFlags(CLI::App* app, SweepFlags* flags);
void AddSpmdFlags(CLI::App* app, SpmdFlags* flags);
// `first_run` (sweep): --explain and the HTML report on by default, --no-explain and --no-html to skip them.
void AddOutputFlags(CLI::App* app, OutputFlags* flags, bool first_run = false);
// What a plain sweep does unless told not to, so that its first run gives the answer: the A/Bs (--explain) and
// the HTML report beside --out (kDefaultHtmlName). SPMD ranks and the other commands keep only what was asked.
inline constexpr const char* kDefaultHtmlName = "commbench-report.html";
void ApplyFirstRunDefaults(OutputFlags* flags);
StatusOr<SweepSpec> ToSpec(const SweepFlags& flags);
// Fails early, before any rank runs, when an output cannot be written.
// Every output writable and none of them naming another or one of `inputs` (a config, a profile).
Status CheckOutputs(const OutputFlags& flags, const std::vector<NamedPath>& inputs = {});

}  // namespace commbench::cli
