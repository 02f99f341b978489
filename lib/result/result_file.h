// The whole result file (docs/result-format.md, reports/result.schema.json): what ran (header), the points, and
// what the diagnosis made of them (trailer). One serialiser and one validating reader; ResultFileWriter
// streams the same serialisation to disk as points finish.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "lib/core/name_table.h"
#include "lib/core/status.h"
#include "lib/model/point.h"
#include "lib/model/spec.h"
#include "lib/result/diagnosis.h"
#include "lib/result/phases.h"
#include "lib/result/point_result.h"

namespace commbench::result {

// 2: raw samples may live in a sidecar file (samples_us.file); 3: points carry their independent repeats
// (repeats: n, p50_us, mean_us); 4: where the time goes (points[].phases, the trailer's wall). Versions 1 to 3
// still load (one repeat per point entry, no phases).
inline constexpr int kSchemaVersion = 4;
inline constexpr int kOldestSchemaVersion = 1;

struct ToolInfo {
  std::string name = "commbench";
  std::string version;
  std::string commit;
};

struct HostPeaks {
  double memcpy_gbps = 0;
  double tcp_loopback_gbps = 0;
};

// The environment fingerprint (docs/design.md §5) is open-ended (backend versions, GPU, variables), so it is kept
// verbatim; the reader checks the fields every consumer relies on and exposes them typed.
struct Environment {
  nlohmann::json fingerprint = nlohmann::json::object();
  std::string host;
  std::string affinity;  // e.g. "0-1"
  int cores_online = 0;
  std::optional<HostPeaks> peaks;
};
// Fills the typed fields from `fingerprint`, checking them.
StatusOr<Environment> ReadEnvironment(const nlohmann::json& fingerprint, const std::string& path = "environment");

struct ResultHeader {
  int schema_version = kSchemaVersion;  // as read; files are always written in kSchemaVersion
  ToolInfo tool;
  std::string command;     // exact, as typed
  std::string started_at;  // ISO 8601, UTC
  SweepSpec spec;          // what was asked (with --explain's additions)
  Environment environment;
};

enum class RunStatus { kComplete, kPartial };
inline constexpr NameTable<RunStatus, 2> kRunStatusNames = {{
    {RunStatus::kComplete, "complete"},
    {RunStatus::kPartial, "partial"},
}};

// One side of an interleaved A/B launch: what one fresh launch of one point measured.
struct AbSide {
  std::string point;         // its id
  double mean_us = 0;        // time_us.mean: the loop's cost per op, the fits' statistic
  double se_us = 0;          // its standard error
  double outside_cpus = -1;  // CPUs that processes outside the run took meanwhile (HostLoad); -1 not measured
};

// One round of an interleaved A/B at one group count: A and B launched one after the other, in `a_first`'s
// order (the order alternates between rounds, A B then B A), so that load coming and going weighs on both.
struct AbRound {
  int round = 0;  // 0-based, in the order the rounds ran
  int groups = 0;
  bool a_first = true;
  AbSide a, b;
};

// --explain's second phase: one cause the first phase suspected and the interleaved A/B that tests it.
struct ExplainAb {
  std::string rule;                 // the suspected finding's rule
  SweepSpec::ExplainFactor factor;  // the values the B side took (one factor)
  std::string reason;               // why, as the console said it
  std::vector<std::string> series;  // the first phase's points the finding named (the A side)
  std::vector<std::string> points;  // the points added (the B side's points the sweep did not have)
  // The A/B as measured: each round, at each group count it uses, one launch of each side.
  std::vector<AbRound> rounds;
};

// What --explain added after the first phase: points[0, first_phase_points) are the requested sweep, the rest
// the A/B points of `abs`. Absent without --explain.
struct ExplainRecord {
  int64_t first_phase_points = 0;
  std::vector<ExplainAb> abs;  // empty: nothing suspected had an A/B to run
};

struct ResultTrailer {
  double duration_s = 0;
  std::vector<Skip> skipped;
  Diagnosis diagnosis;
  RunStatus status = RunStatus::kComplete;
  std::string failure;  // partial only
  std::optional<ExplainRecord> explain;
  // `commbench accept` only: its verdict, checks and suspects, as lib/accept writes them (its own typed model;
  // the result file carries it for the report and for readers).
  std::optional<nlohmann::json> acceptance;
  // Where the run's wall time went, and the share of it in timed loops (lib/result/phases.h); absent in files
  // before schema_version 4.
  std::optional<WallTime> wall;
};

struct ResultFile {
  ResultHeader header;
  std::vector<PointResult> points;
  ResultTrailer trailer;
};

nlohmann::json ResultFileToJson(const ResultFile& file);
// Validates against the schema this build writes: one error naming the field ("points[2].time_us.p50: ...").
StatusOr<ResultFile> ReadResultFile(const nlohmann::json& j);
// Reads and parses a file: InvalidArgument for unreadable, empty, truncated or invalid content.
StatusOr<ResultFile> LoadResultFile(const std::string& path);
// The same for text already read (a store's file, read through its directory); `path` names it in messages.
StatusOr<ResultFile> ParseResultText(const std::string& content, const std::string& path);

// The pieces of the serialisation, for the streaming writer.
nlohmann::json HeaderToJson(const ResultHeader& h);
nlohmann::json TrailerToJson(const ResultTrailer& t);

}  // namespace commbench::result
