#include "lib/history/store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "lib/core/atomic_file.h"
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

// A commit as part of a file name: letters, digits, '-', '.', '_' kept, anything else '_'; at most 40.
std::string FileSafe(const std::string& s) {
  std::string out;
  for (char c : s.substr(0, 40)) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.') ? c : '_';
  return out.empty() ? "unknown" : out;
}

// Holds an exclusive flock on DIR/history.lock for its lifetime.
class DirLock {
 public:
  static StatusOr<DirLock> Take(const std::string& dir) {
    const std::string path = dir + "/" + kLockName;
    const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) return Unavailable(path + ": cannot open the history's lock: " + std::strerror(errno));
    while (flock(fd, LOCK_EX) != 0) {
      if (errno != EINTR) {
        close(fd);
        return Unavailable(path + ": cannot lock: " + std::strerror(errno));
      }
    }
    return DirLock(fd);
  }
  DirLock(DirLock&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  ~DirLock() {
    if (fd_ >= 0) close(fd_);  // releases the lock
  }

 private:
  explicit DirLock(int fd) : fd_(fd) {}
  int fd_;
};

Status MakeDir(const std::string& path) {
  if (mkdir(path.c_str(), 0777) == 0 || errno == EEXIST) {
    struct stat st {};
    if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return OkStatus();
    return InvalidArgument(path + " is not a directory (accepted: a history directory, or a new one to create)");
  }
  return InvalidArgument(path + ": cannot create the directory: " + std::strerror(errno));
}

StatusOr<std::string> ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidArgument(path + ": cannot read it");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Str(const json& j, const char* key) {
  const json* v = Find(j, key);
  return v && v->is_string() ? v->get<std::string>() : "";
}

StatusOr<RunEntry> EntryFromJson(const json& r, const std::string& where) {
  RunEntry e;
  const json* seq = Find(r, "seq");
  if (!seq || !seq->is_number_integer() || seq->get<int64_t>() < 0) return InvalidArgument(where + ".seq: missing or not an integer >= 0");
  e.seq = seq->get<int>();
  for (auto [key, field] : {std::pair{"id", &e.id}, {"file", &e.file}, {"fingerprint", &e.fingerprint}}) {
    *field = Str(r, key);
    if (field->empty()) return InvalidArgument(where + "." + key + ": missing or not a non-empty string");
  }
  if (e.file.find("..") != std::string::npos || e.file[0] == '/') {
    return InvalidArgument(where + ".file: '" + e.file + "' (accepted: a path inside the history directory)");
  }
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
    runs.push_back({{"seq", e.seq}, {"id", e.id}, {"file", e.file}, {"commit", e.commit}, {"time", e.time},
                    {"fingerprint", e.fingerprint}, {"runner", e.runner}, {"added_at", e.added_at}});
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

StatusOr<History> LoadHistory(const std::string& dir) {
  const std::string path = dir + "/" + kIndexName;
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return NotFound(dir + ": no " + kIndexName + " (not a history; `history add` makes one)");
  auto text = ReadAll(path);
  if (!text.ok()) return text.status();
  json j = json::parse(*text, nullptr, false);
  if (j.is_discarded()) return InvalidArgument(path + ": not valid JSON");
  return HistoryFromJson(j, path);
}

StatusOr<result::ResultFile> LoadRun(const std::string& dir, const RunEntry& run) {
  return gate::LoadComparable(dir + "/" + run.file);
}

StatusOr<RunEntry> AddRun(const std::string& dir, const AddRequest& request) {
  auto text = ReadAll(request.result_path);
  if (!text.ok()) return text.status();
  auto file = gate::LoadComparable(request.result_path);
  if (!file.ok()) return file.status();
  RETURN_IF_ERROR(MakeDir(dir));
  auto lock = DirLock::Take(dir);
  if (!lock.ok()) return lock.status();
  History h;
  auto loaded = LoadHistory(dir);
  if (loaded.ok()) {
    h = *loaded;
  } else if (loaded.status().code() != StatusCode::kNotFound) {
    return loaded.status();
  }
  const json& env = file->header.environment.fingerprint;
  RunEntry e;
  e.seq = h.runs.empty() ? 0 : h.runs.back().seq + 1;
  e.commit = request.commit.empty() ? file->header.tool.commit : request.commit;
  e.time = request.time.empty() ? file->header.started_at : request.time;
  e.fingerprint = RunnerFingerprint(env);
  e.runner = RunnerDescription(env);
  e.added_at = NowIso();
  char seq[16];
  std::snprintf(seq, sizeof(seq), "%06d", e.seq);
  e.id = std::string(seq) + "-" + FileSafe(e.commit);
  e.file = "runs/" + e.fingerprint + "/" + e.id + ".json";
  RETURN_IF_ERROR(MakeDir(dir + "/runs"));
  RETURN_IF_ERROR(MakeDir(dir + "/runs/" + e.fingerprint));
  RETURN_IF_ERROR(WriteFileAtomically(dir + "/" + e.file, *text));
  h.runs.push_back(e);
  RETURN_IF_ERROR(WriteFileAtomically(
      dir + "/" + kIndexName, HistoryToJson(h).dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"));
  return e;
}

}  // namespace commbench::history
