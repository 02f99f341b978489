// What `gate --history DIR` judges a change against (docs/history.md, "Gate with history"): for each point of this
// runner's latest filed run, the runs of its series since the last change point (the recent segment of main's
// history, this runner fingerprint only), one value per run (its repeats' median), so the gate's decision sees
// the run-to-run spread of that segment rather than one job's repeats. And the record of exactly which runs were
// used, which the gate writes into its result file and its comparison JSON.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "lib/core/status.h"
#include "lib/history/changepoint.h"
#include "lib/history/store.h"
#include "lib/result/result_file.h"

namespace commbench::history {

inline constexpr int kGateRecordSchemaVersion = 1;

struct GateBaselineOptions {
  ChangePointOptions change_points;  // as `history check` finds them
  // A segment of fewer runs cannot judge: with 5 runs against 5 repeats the rank test can reach p 0.008, with 4
  // only 0.016, above the gate's alpha 0.01.
  int min_runs = 5;
};

// One point's segment: the runs since its last change point.
struct PointSegment {
  std::string point_id;             // the point's id in the result files, as the comparison names it
  std::vector<RunEntry> runs;       // the runs used, in run order
  std::vector<double> run_medians;  // each run's median of its repeats (us): the baseline's values
  bool after_change = false;        // the segment starts at a change point (else at the series' first run)
  double change_p = 1;              // that change point's p-value
  int series_runs = 0;              // the series' length (this runner, this point)
};

struct GateBaseline {
  std::string dir, fingerprint, runner;
  int min_runs = 0;                  // as asked (GateBaselineOptions)
  RunEntry latest;                   // this runner's latest run: the gate runs its sweep
  result::ResultFile base;           // its header and points, each point's repeats = the segment's run medians
  std::vector<PointSegment> points;  // in the latest run's point order
  std::vector<RunEntry> runs;        // every run used by some point, in run order
  // Non-empty when the history is valid but cannot judge yet (a segment shorter than min_runs, e.g. just after a
  // change point): "too short to say", the gate's exit 3. One sentence naming the point and its segment.
  std::string too_short;
};

// Bad input (InvalidArgument, one line naming DIR and what is accepted): DIR missing or not a history, a history
// with no run, with no run of `fingerprint` (the line lists the fingerprints it has), or a run file that does not
// load.
StatusOr<GateBaseline> LoadGateBaseline(const std::string& dir, const std::string& fingerprint,
                                        const GateBaselineOptions& options = {});

// The record of the runs used (docs/history.md): {schema_version, history, fingerprint, runner, min_runs,
// latest, runs: [{id, commit, time}], points: [{point, runs: [id], since: {run, commit, time, p_value} | null,
// run_medians_us, series_runs}]}.
nlohmann::json GateRecordToJson(const GateBaseline& b);

// Adds `record` under the key "gate_history" to the JSON object in `path` (atomically: temp file and rename).
Status AddGateRecord(const std::string& path, const nlohmann::json& record);

}  // namespace commbench::history
