#include "lib/history/store.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>

#include "lib/core/data_file.h"
#include "lib/core/output_paths.h"
#include "lib/core/store_dir.h"
#include "lib/gate/compare.h"

namespace commbench::history {
namespace {

using nlohmann::json;

const json* Find(const json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

std::string NowIso() {
  char buf[32];
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// The digits a run file's name starts with ("000042-abc.json": 42), or -1 when it is not a run's name; a number
// beyond int64 reads as the largest one (so the next seq is refused, never wrapped).
int64_t LeadingSeq(const std::string& name) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  size_t i = 0;
  int64_t v = 0;
  while (i < name.size() && name[i] >= '0' && name[i] <= '9') {
    const int d = name[i] - '0';
    v = v > (kMax - d) / 10 ? kMax : v * 10 + d;
    ++i;
  }
  if (i == 0 || i == name.size() || (name[i] != '-' && name[i] != '.')) return -1;
  return v;
}

// The largest seq a run file under runs/*/ carries (-1 when none): a lost or stale index must not make the next
// add reuse a name. Entries that are not the store's own directories (a planted link, another user's) are skipped.
int64_t MaxSeqOnDisk(const StoreDir& runs) {
  int64_t max_seq = -1;
  const int fd = openat(runs.fd(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return max_seq;
  DIR* d = fdopendir(fd);
  if (d == nullptr) {
    close(fd);
    return max_seq;
  }
  std::vector<std::string> subdirs;
  while (const dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") subdirs.push_back(name);
  }
  closedir(d);
  for (const std::string& name : subdirs) {
    auto sub = runs.Subdir(name, false);
    if (!sub.ok()) continue;
    auto files = sub->ListFiles();
    if (!files.ok()) continue;
    for (const std::string& f : *files) max_seq = std::max(max_seq, LeadingSeq(f));
  }
  return max_seq;
}

// A run's `file` as the index gives it: components separated by '/', none empty, "." or "..", not absolute. Any
// other text is a name the store may hold (an older version wrote "main..feature" into names).
Status CheckRunPath(const std::string& file, const std::string& where) {
  const std::string bad = where + ".file: '" + file +
                          "' (accepted: a relative path inside the history directory, no empty, '.' or '..' "
                          "component)";
  if (file.empty() || file[0] == '/' || file.find('\0') != std::string::npos) return InvalidArgument(bad);
  for (size_t begin = 0;;) {
    const size_t end = file.find('/', begin);
    const std::string part = file.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
    if (part.empty() || part == "." || part == "..") return InvalidArgument(bad);
    if (end == std::string::npos) return OkStatus();
    begin = end + 1;
  }
}

std::vector<std::string> Components(const std::string& file) {
  std::vector<std::string> parts;
  for (size_t begin = 0;;) {
    const size_t end = file.find('/', begin);
    parts.push_back(file.substr(begin, end == std::string::npos ? std::string::npos : end - begin));
    if (end == std::string::npos) return parts;
    begin = end + 1;
  }
}

StatusOr<int64_t> ReadSeq(const json& r, const std::string& where) {
  const json* seq = Find(r, "seq");
  const std::string accepted =
      " (accepted: an integer from 0 to " + std::to_string(std::numeric_limits<int64_t>::max()) + ")";
  if (!seq || !seq->is_number_integer()) return InvalidArgument(where + ".seq: missing or not an integer" + accepted);
  if (seq->is_number_unsigned()) {
    const uint64_t u = seq->get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return InvalidArgument(where + ".seq: " + seq->dump() + accepted);
    }
    return static_cast<int64_t>(u);
  }
  const int64_t v = seq->get<int64_t>();
  if (v < 0) return InvalidArgument(where + ".seq: " + seq->dump() + accepted);
  return v;
}

std::string Str(const json& j, const char* key) {
  const json* v = Find(j, key);
  return v && v->is_string() ? v->get<std::string>() : "";
}

StatusOr<RunEntry> EntryFromJson(const json& r, const std::string& where) {
  RunEntry e;
  ASSIGN_OR_RETURN(e.seq, ReadSeq(r, where));
  for (auto [key, field] : {std::pair{"id", &e.id}, {"file", &e.file}, {"fingerprint", &e.fingerprint}}) {
    *field = Str(r, key);
    if (field->empty()) return InvalidArgument(where + "." + key + ": missing or not a non-empty string");
  }
  RETURN_IF_ERROR(CheckRunPath(e.file, where));
  e.commit = Str(r, "commit");
  e.time = Str(r, "time");
  e.runner = Str(r, "runner");
  e.added_at = Str(r, "added_at");
  return e;
}

}  // namespace

std::string RunnerFingerprint(const json& env) {
  json key = json::object();
  for (const char* k : {"cpu_model", "cores_online", "cores_available", "affinity", "os", "gloo_version"}) {
    if (const json* v = Find(env, k)) key[k] = *v;
  }
  // A runner under a CPU limit is another runner; one without keeps the key it had before the limit was recorded.
  if (const json* v = Find(env, "cpu_quota"); v && v->is_number()) key["cpu_quota"] = *v;
  if (const json* b = Find(env, "backends"); b && b->is_object()) {
    for (const auto& [name, info] : b->items()) {
      if (const json* v = Find(info, "version")) key["backends"][name] = *v;
    }
  }
  if (const json* v = Find(env, "variables")) key["variables"] = *v;
  if (const json* g = Find(env, "gpu"); g && g->is_object()) {
    for (const char* k : {"name", "driver", "cuda_runtime", "nccl"}) {
      if (const json* v = Find(*g, k)) key["gpu"][k] = *v;
    }
  }
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c :
       key.dump(-1, ' ', false,
                nlohmann::json::error_handler_t::replace)) {  // nlohmann's objects are sorted: a canonical text
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string RunnerDescription(const json& env) {
  auto text = [&](const char* k) {
    const json* v = Find(env, k);
    return v ? (v->is_string() ? v->get<std::string>() : v->dump()) : std::string("?");
  };
  return text("cpu_model") + ", " + text("cores_online") + " cores, affinity " + text("affinity") + ", " + text("os");
}

json HistoryToJson(const History& h) {
  json runs = json::array();
  for (const RunEntry& e : h.runs) {
    runs.push_back({{"seq", e.seq},
                    {"id", e.id},
                    {"file", e.file},
                    {"commit", e.commit},
                    {"time", e.time},
                    {"fingerprint", e.fingerprint},
                    {"runner", e.runner},
                    {"added_at", e.added_at}});
  }
  return {{"kind", "commbench history"}, {"schema_version", kHistorySchemaVersion}, {"runs", runs}};
}

StatusOr<History> HistoryFromJson(const json& j, const std::string& path) {
  if (Str(j, "kind") != "commbench history") return InvalidArgument(path + ": kind is not \"commbench history\"");
  const json* v = Find(j, "schema_version");
  if (!v || !v->is_number_integer() || v->get<int64_t>() < 1 || v->get<int64_t>() > kHistorySchemaVersion) {
    return InvalidArgument(path + ": schema_version " + (v ? v->dump() : "missing") + " (accepted: 1 to " +
                           std::to_string(kHistorySchemaVersion) + "; a newer commbench wrote it)");
  }
  History h;
  h.schema_version = v->get<int>();
  const json* runs = Find(j, "runs");
  if (!runs || !runs->is_array()) return InvalidArgument(path + ": runs: missing or not an array");
  for (size_t i = 0; i < runs->size(); ++i) {
    auto e = EntryFromJson((*runs)[i], path + ": runs[" + std::to_string(i) + "]");
    if (!e.ok()) return e.status();
    h.runs.push_back(*e);
  }
  return h;
}

StatusOr<History> LoadIndex(const StoreDir& store) {
  const std::string path = store.path() + "/" + kIndexName;
  auto text = store.Read(kIndexName, kMaxIndexFileBytes, "history index");
  if (!text.ok()) {
    if (text.status().code() == StatusCode::kNotFound) {
      return NotFound(store.path() + ": no " + kIndexName + " (not a history; `history add` makes one)");
    }
    return text.status();
  }
  json j = json::parse(*text, nullptr, false);
  if (j.is_discarded()) return InvalidArgument(path + ": not valid JSON");
  return HistoryFromJson(j, path);
}

StatusOr<History> LoadHistory(const std::string& dir) {
  auto store = StoreDir::Open(dir, false);
  if (!store.ok()) {
    if (store.status().code() == StatusCode::kNotFound) {
      return NotFound(dir + ": no such directory (not a history; `history add` makes one)");
    }
    return store.status();
  }
  return LoadIndex(*store);
}

StatusOr<result::ResultFile> LoadRun(const StoreDir& store, const RunEntry& run) {
  // Resolved a component at a time through the store's own directories: never out of it, never through a link.
  RETURN_IF_ERROR(CheckRunPath(run.file, store.path() + "/" + kIndexName + ": run " + run.id));
  const std::vector<std::string> parts = Components(run.file);
  std::optional<StoreDir> sub;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    auto next = (sub ? *sub : store).Subdir(parts[i], false);
    if (!next.ok()) return InvalidArgument("run " + run.id + ": " + next.status().message());
    sub.emplace(std::move(*next));
  }
  const std::string path = store.path() + "/" + run.file;
  auto text = (sub ? *sub : store).Read(parts.back(), kMaxResultFileBytes, "run file");
  if (!text.ok()) return InvalidArgument("run " + run.id + ": " + text.status().message());
  ASSIGN_OR_RETURN(result::ResultFile file, result::ParseResultText(*text, path));
  RETURN_IF_ERROR(gate::CheckComparable(file, path));
  return file;
}

StatusOr<result::ResultFile> LoadRun(const std::string& dir, const RunEntry& run) {
  ASSIGN_OR_RETURN(StoreDir store, StoreDir::Open(dir, false));
  return LoadRun(store, run);
}

StatusOr<RunEntry> AddRun(const std::string& dir, const AddRequest& request) {
  // The bytes filed are the bytes validated: read once.
  auto text = ReadDataFile(request.result_path, kMaxResultFileBytes, "result file");
  if (!text.ok()) {
    if (text.status().code() == StatusCode::kInvalidArgument) return text.status();
    return InvalidArgument("cannot read " + request.result_path + ": " + text.status().message());
  }
  auto file = result::ParseResultText(*text, request.result_path);
  if (!file.ok()) return file.status();
  RETURN_IF_ERROR(gate::CheckComparable(*file, request.result_path));
  ASSIGN_OR_RETURN(StoreDir store, StoreDir::Open(dir, true));
  ASSIGN_OR_RETURN(StoreDir::Lock lock, store.TakeLock(kLockName));
  History h;
  auto loaded = LoadIndex(store);
  if (loaded.ok()) {
    h = *loaded;
  } else if (loaded.status().code() != StatusCode::kNotFound) {
    return loaded.status();
  }
  ASSIGN_OR_RETURN(StoreDir runs, store.Subdir("runs", true));
  // Past every seq the index lists and every run file on disk: a lost or stale index never reuses a name.
  int64_t max_seq = MaxSeqOnDisk(runs);
  for (const RunEntry& r : h.runs) max_seq = std::max(max_seq, r.seq);
  if (max_seq == std::numeric_limits<int64_t>::max()) {
    return InvalidArgument(store.path() + ": the largest seq filed is " + std::to_string(max_seq) +
                           ", which has no next one (accepted: a history whose seqs are below it; start a new "
                           "history)");
  }
  const json& env = file->header.environment.fingerprint;
  RunEntry e;
  e.seq = max_seq + 1;
  e.commit = request.commit.empty() ? file->header.tool.commit : request.commit;
  e.time = request.time.empty() ? file->header.started_at : request.time;
  e.fingerprint = RunnerFingerprint(env);
  e.runner = RunnerDescription(env);
  e.added_at = NowIso();
  char seq[24];
  std::snprintf(seq, sizeof(seq), "%06lld", static_cast<long long>(e.seq));
  // A commit is any text ("main..feature", a newline, a path): one encoded name component.
  e.id = std::string(seq) + "-" + EncodeStoreName(e.commit.empty() ? "unknown" : e.commit, 60);
  e.file = "runs/" + e.fingerprint + "/" + e.id + ".json";
  ASSIGN_OR_RETURN(StoreDir series, runs.Subdir(e.fingerprint, true));
  // Refused before any write when something (a link, a FIFO) sits at the name; CreateNew still never replaces one
  // planted after this look.
  if (series.Exists(e.id + ".json")) {
    return InvalidArgument("store " + series.path() + ": " + e.id +
                           ".json already exists and is not a run file "
                           "(refused: a store never writes over or through it; remove it)");
  }
  RETURN_IF_ERROR(series.CreateNew(e.id + ".json", *text));  // never over a file a stale index forgot
  h.runs.push_back(e);
  RETURN_IF_ERROR(
      store.Replace(kIndexName, HistoryToJson(h).dump(1, ' ', false, json::error_handler_t::replace) + "\n"));
  return e;
}

Status CheckOutsideHistory(const std::string& dir, const std::string& result_path) {
  const std::string d = ResolvedPath(dir), result = ResolvedPath(result_path);
  if (d.empty() || result.empty()) return OkStatus();
  if (result == d || result.compare(0, d.size() + 1, d + "/") == 0) {
    return InvalidArgument("RESULT " + result_path + " lies inside the history " + dir +
                           " (accepted: a result file outside the history directory, which only commbench writes)");
  }
  return OkStatus();
}

}  // namespace commbench::history
