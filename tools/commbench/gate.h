// `commbench gate`: its options and its modes. gate.cc adds the subcommand and checks the flags; gate_modes.cc
// (--baseline, --ab), gate_calibrate.cc (--calibrate) and gate_history.cc (--history) run a mode through lib/app,
// print its progress and map its outcome to the exit code; gate_rounds.cc has the rounds they share.
#pragma once

#include <cstdint>
#include <string>

#include "lib/app/gate_run.h"
#include "lib/core/status.h"
#include "lib/gate/calibration.h"
#include "lib/gate/compare.h"
#include "lib/model/spec.h"
#include "tools/commbench/comparison_outputs.h"
#include "tools/commbench/export_flags.h"
#include "tools/commbench/sweep_flags.h"

namespace commbench::cli {

struct GateOptions {
  SweepFlags sweep;
  std::string baseline;
  std::string history;  // --history DIR: the runs since the last change point are the baseline (gate_history.cc)
  std::string config;
  std::string out = "commbench-gate.json";
  std::string out_a;  // --ab: variant A's result too
  bool update_baseline = false;
  bool ab = false;
  std::string a, b;
  bool quiet = false;
  // Sequential repeats (docs/gate.md): the rounds' wall-clock budget (0: none), the looks, the re-run bound.
  double budget_s = 0;
  int64_t first_look = 10, look_every = 10;
  int rerun_disturbed = 5;
  bool calibrate = false;  // --calibrate: A/A on this runner, kept with --baseline (gate_calibrate.cc)
  ComparisonFlags flags;
  gate::CompareOptions compare;
  ExportFlags exports;  // --prom, --csv, --trace of the new result
};

// --baseline: runs the sweep the baseline records (or, with --update-baseline and no baseline yet, the flags'
// sweep, which becomes the baseline) and compares. Exit codes as `compare`.
int RunBaselineGate(const GateOptions& o, const SweepSpec& given);
// --history: runs the sweep of this runner's latest run in the history and compares it with the runs since each
// point's last change point (lib/history/gate_baseline.h). Exit codes as `compare`.
int RunHistoryGate(const GateOptions& o, const SweepSpec& given);
// --ab: runs variants A and B alternately and compares B against A. Exit codes as `compare`.
int RunAbGate(GateOptions o, const SweepSpec& given);
// --calibrate: A/A rounds of the baseline's sweep (or, without a baseline yet, the flags'), every planned repeat
// within the budget; the calibration written with the baseline. 0 when every point is gateable here, 3 not.
int RunCalibration(const GateOptions& o, const SweepSpec& given);

// The modes' shared rounds (gate_rounds.cc). --budget, --first-look, --look-every, --rerun-disturbed, checked;
// `planned` the most repeats a side.
StatusOr<app::SequentialOptions> SequentialFrom(const GateOptions& o, int64_t planned, bool stop_early);
// The outputs every mode writes once its rounds are done (gate_rounds.cc). The new result's exports (--prom,
// --csv, --trace): false, with the error line, when one could not be written.
bool Exported(const result::ResultFile& file, const std::string& result_path, const GateOptions& o);
// The sides' results as --out and --out-a keep them (without samples), and the new side's exports: 0, or the exit
// code of a failure to write.
int WriteSides(const app::SequentialOutcome& run, const GateOptions& o, bool ab);
// The comparison's outputs; its exit code (2 when an output could not be written).
int Finish(const gate::Comparison& c, const GateOptions& o, const std::string& base, const std::string& now);
// One stderr line per point the calibration found ungateable here, said before anything is judged.
void SayUngateable(const gate::Calibration& calibration);
// `spec`'s points one repeat a launch, in a private temporary directory, announced as "commbench gate: <mode><N>
// points, <plan>". An error is the message to fail with.
StatusOr<app::SequentialOutcome> RunRounds(const GateOptions& o, const SweepSpec& spec, const std::string& mode,
                                           const std::string& plan, const result::ResultFile* stored,
                                           const app::Variant& a, const app::Variant& b,
                                           const gate::CompareOptions& compare,
                                           const app::SequentialOptions& sequential);

// Every output of the gate writable and apart from its inputs and the history (gate_outputs.cc).
Status CheckGateOutputs(const GateOptions& o);

}  // namespace commbench::cli
