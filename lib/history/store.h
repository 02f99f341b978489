// The performance history (docs/history.md): a directory CI keeps as an artifact. Each filed result is copied
// under runs/FINGERPRINT/ and listed in one index, history.json (kind "commbench history", schema_version 1),
// with its commit, time and runner fingerprint. Adds take an exclusive lock (flock on history.lock) around
// read-index, copy, write-index; the index is replaced atomically (temp + rename), so a reader never sees half of
// it and two concurrent adds both land. Series never mix fingerprints. Every file is written and read through
// StoreDir (lib/core/store_dir.h): never through a link, run files created never over an existing one.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "lib/core/status.h"
#include "lib/core/store_dir.h"
#include "lib/result/result_file.h"

namespace commbench::history {

inline constexpr int kHistorySchemaVersion = 1;  // this build writes 1 and reads every version <= 1
inline constexpr char kIndexName[] = "history.json";
inline constexpr char kLockName[] = "history.lock";

// One filed result as the index lists it.
struct RunEntry {
  int64_t seq = 0;          // filing order, 0-based, unique in the history (and among its run files)
  std::string id;           // "<seq>-<commit>", unique; the commit encoded as EncodeStoreName does
  std::string file;         // relative to the history directory: runs/FINGERPRINT/ID.json
  std::string commit;       // the code that ran (default: the result's tool.commit)
  std::string time;         // ISO 8601 UTC (default: the result's started_at)
  std::string fingerprint;  // 16 hex digits of the timing-relevant environment (RunnerFingerprint)
  std::string runner;       // human-readable: "CPU model, N cores, affinity A, OS"
  std::string added_at;     // when it was filed
};

struct History {
  int schema_version = kHistorySchemaVersion;  // as read
  std::vector<RunEntry> runs;                  // filing order
};

// The environment fields that change timings, as compare judges drift (lib/gate/compare.h): CPU, cores and
// affinity, OS, backend and GPU software versions, NCCL_/GLOO_/CUDA_/OMP_ variables; not the host name. FNV-1a
// 64 of their canonical JSON, 16 hex digits.
std::string RunnerFingerprint(const nlohmann::json& environment);
std::string RunnerDescription(const nlohmann::json& environment);

struct AddRequest {
  std::string result_path;
  std::string commit;  // "" = the result's tool.commit
  std::string time;    // "" = the result's started_at
};

// Files one result (read and validated first: a file compare could not judge is refused, nothing written).
// Creates `dir` (and its parent must exist) when absent. Returns the entry filed.
StatusOr<RunEntry> AddRun(const std::string& dir, const AddRequest& request);

// The index (InvalidArgument naming the file and field when it is not a history this build can read; NotFound
// when `dir` has no index).
StatusOr<History> LoadHistory(const std::string& dir);
nlohmann::json HistoryToJson(const History& h);
StatusOr<History> HistoryFromJson(const nlohmann::json& j, const std::string& path);

// One run's result file, read through the store's directories (a link, a FIFO or a file outside the history is
// refused) and bounded (kMaxResultFileBytes).
StatusOr<result::ResultFile> LoadRun(const std::string& dir, const RunEntry& run);
StatusOr<result::ResultFile> LoadRun(const StoreDir& store, const RunEntry& run);

// A result inside the history is one of the store's own files (its index, a filed run): filing it would read what
// the add replaces. InvalidArgument unless `result_path` lies outside `dir` (links resolved).
Status CheckOutsideHistory(const std::string& dir, const std::string& result_path);

}  // namespace commbench::history
