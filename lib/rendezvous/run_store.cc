#include "lib/rendezvous/run_store.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <sstream>
#include <thread>

#include "lib/core/text_file.h"
#include "lib/rendezvous/file_store.h"
#include "lib/rendezvous/redis_store.h"

namespace commbench {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

const char* const kOwnerKey = "owner";

std::string SafeName(const std::string& run_id) {
  std::string out = run_id.empty() ? "default" : run_id;
  for (char& c : out) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (!ok) c = '_';
  }
  return out;
}

std::string ThisHost() {
  char name[256] = {0};
  gethostname(name, sizeof(name) - 1);
  return name;
}

// Field 22 of /proc/PID/stat: when the process started, in clock ticks since boot ("" when it is gone). With the
// pid it names one process: a pid reused by another process has another start.
std::string ProcessStart(int pid) {
  const std::string stat = FirstLine("/proc/" + std::to_string(pid) + "/stat");
  const size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return "";
  std::istringstream fields(stat.substr(paren + 2));
  std::string field;
  for (int i = 3; i <= 22 && (fields >> field); ++i) {
    if (i == 22) return field;
  }
  return "";
}

std::string NewNonce() {
  std::random_device rd;
  std::mt19937_64 gen((static_cast<uint64_t>(rd()) << 32) ^ rd() ^ static_cast<uint64_t>(getpid()));
  char buf[20];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(gen()));
  return buf;
}

// The owner record: one `name=value` per line.
struct Owner {
  std::string host, boot_id, pid_start, nonce;
  int pid = 0;
  int world = 0;
  int64_t started = 0;  // Unix seconds

  static Owner Me(int world) {
    Owner o;
    o.host = ThisHost();
    o.boot_id = FirstLine("/proc/sys/kernel/random/boot_id");
    o.pid = static_cast<int>(getpid());
    o.pid_start = ProcessStart(o.pid);
    o.nonce = NewNonce();
    o.world = world;
    o.started = static_cast<int64_t>(std::time(nullptr));
    return o;
  }
  std::string Encode() const {
    return "host=" + host + "\nboot_id=" + boot_id + "\npid=" + std::to_string(pid) + "\npid_start=" + pid_start +
           "\nnonce=" + nonce + "\nworld=" + std::to_string(world) + "\nstarted=" + std::to_string(started) + "\n";
  }
  static std::optional<Owner> Decode(const std::string& text) {
    std::map<std::string, std::string> f;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
      const size_t eq = line.find('=');
      if (eq != std::string::npos) f[line.substr(0, eq)] = line.substr(eq + 1);
    }
    if (f["nonce"].empty() || f["pid"].empty()) return std::nullopt;
    Owner o;
    o.host = f["host"];
    o.boot_id = f["boot_id"];
    o.pid_start = f["pid_start"];
    o.nonce = f["nonce"];
    o.pid = std::atoi(f["pid"].c_str());
    o.world = std::atoi(f["world"].c_str());
    o.started = std::atoll(f["started"].c_str());
    return o;
  }
  // Its process is gone: on this host (same name, same boot), the pid is dead or now another process.
  bool GoneFromThisHost() const {
    if (host != ThisHost() || boot_id.empty() || boot_id != FirstLine("/proc/sys/kernel/random/boot_id")) {
      return false;
    }
    if (pid <= 0) return true;
    if (kill(pid, 0) != 0 && errno == ESRCH) return true;
    return !pid_start.empty() && ProcessStart(pid) != pid_start;
  }
  std::string Describe(double heartbeat_age_s) const {
    char when[32] = "?";
    const time_t t = static_cast<time_t>(started);
    struct tm tm;
    if (gmtime_r(&t, &tm)) std::strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
    return "rank 0 on " + host + " (pid " + std::to_string(pid) + ", " + std::to_string(world) + " ranks, started " +
           when + ", last heartbeat " + std::to_string(static_cast<int>(heartbeat_age_s)) + " s ago)";
  }
};

// A store whose keys go under "<prefix>/" and whose prefix may change (a new owner's nonce). Once closed it
// writes nothing: a rank thread that wakes while (or after) the run is removed cannot leave a key behind.
class ScopedStore : public Store {
 public:
  void set_base(Store* base) { base_ = base; }
  void set_prefix(std::string prefix) { prefix_ = std::move(prefix); }
  // Returns once no write is under way.
  void Close() {
    std::lock_guard<std::mutex> lock(writing_);
    closed_ = true;
  }
  Status Set(const std::string& key, const std::vector<char>& value) override {
    std::lock_guard<std::mutex> lock(writing_);
    if (closed_) return Unavailable("the run has left " + Describe() + ": '" + key + "' not written");
    return base_->Set(Key(key), value);
  }
  StatusOr<std::vector<char>> Get(const std::string& key, milliseconds timeout) override {
    return base_->Get(Key(key), timeout);
  }
  std::string Describe() const override { return base_->Describe(); }

 private:
  std::string Key(const std::string& key) const { return prefix_.empty() ? key : prefix_ + "/" + key; }
  Store* base_ = nullptr;
  std::string prefix_;
  std::mutex writing_;
  bool closed_ = false;
};

// What the file and Redis run stores share: the owner record, its heartbeat, claims and joins. The backends
// supply the primitives, with keys relative to the run's namespace.
class OwnedRunStore : public RunStore {
 public:
  explicit OwnedRunStore(std::string run_id) : run_id_(std::move(run_id)) {}
  // Derived classes stop the heartbeat in their destructors: it calls their Beat().
  ~OwnedRunStore() override = default;
  Store* store() override { return &scoped_; }

  Status Claim(int world) override {
    const Owner me = Owner::Me(world);
    for (int attempt = 0; attempt < 2; ++attempt) {
      ASSIGN_OR_RETURN(bool created, CreateOwner(me.Encode()));
      if (created) {
        state_ = State::kClaimed;
        nonce_ = me.nonce;
        scoped_.set_prefix(nonce_);
        RemoveAllBut(nonce_);  // what a stale run left, and half-written files of killed writers
        StartHeartbeat();
        return OkStatus();
      }
      auto held = ReadOwner();
      if (!held) continue;  // it just went: try again
      if (!Stale(*held)) {
        state_ = State::kRefused;
        return InUse(held->first, held->second);
      }
      (void)DropOwner();  // stale: take it over (its leftovers go once the claim is ours)
    }
    state_ = State::kRefused;
    return Unavailable("run id " + run_id_ + " in use at " + Describe() +
                       ": another run claimed it at the same "
                       "time; give each run its own --run-id");
  }

  Status Join(int world, milliseconds timeout) override {
    const auto deadline = Clock::now() + timeout;
    std::optional<std::pair<Owner, double>> stale;
    while (true) {
      auto held = ReadOwner();
      if (held && !Stale(*held)) {
        if (held->first.world != world) return InUse(held->first, held->second);
        state_ = State::kJoined;
        nonce_ = held->first.nonce;
        scoped_.set_prefix(nonce_);
        return OkStatus();
      }
      if (held) stale = held;
      if (Clock::now() >= deadline) break;
      std::this_thread::sleep_for(milliseconds(50));
    }
    std::string why = "rank 0 never claimed run id " + run_id_ + " at " + Describe();
    if (stale) {
      why += "; a stale run holds it (" + stale->first.Describe(stale->second) + "): its rank 0 clears it when " +
             "it starts, or clear it now with: " + ClearCommand();
    }
    return DeadlineExceeded(why);
  }

  bool FollowNewOwner() override {
    if (state_ != State::kJoined) return false;
    auto held = ReadOwner();
    if (!held || held->first.nonce == nonce_ || Stale(*held)) return false;
    nonce_ = held->first.nonce;
    scoped_.set_prefix(nonce_);
    return true;
  }

  Status Remove() override {
    if (state_ == State::kRefused) return OkStatus();
    scoped_.Close();
    if (state_ == State::kJoined) return Leave();
    StopHeartbeat();
    if (state_ == State::kClaimed) {
      auto held = ReadOwner();
      if (held && held->first.nonce != nonce_) return RemoveNamespace(nonce_);  // the id was taken over
    }
    return RemoveEverything();
  }

 protected:
  // The owner record and its heartbeat's age in seconds, if there is one.
  virtual std::optional<std::pair<std::string, double>> ReadOwnerText() = 0;
  virtual StatusOr<bool> CreateOwner(const std::string& record) = 0;
  virtual Status DropOwner() = 0;
  virtual void Beat(int beat) = 0;
  virtual void RemoveAllBut(const std::string& nonce) = 0;
  virtual Status RemoveNamespace(const std::string& nonce) = 0;
  virtual Status RemoveEverything() = 0;
  // What is left of the run's place once its keys are gone (the file store's directory), if nothing else is in it.
  virtual void RemoveIfEmpty() = 0;
  virtual std::string ClearCommand() const = 0;

  void set_base(Store* base) { scoped_.set_base(base); }
  void StopHeartbeat() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    if (heartbeat_.joinable()) heartbeat_.join();
  }

  const std::string run_id_;

 private:
  enum class State { kOpen, kClaimed, kJoined, kRefused };

  // A joined rank leaves the run's keys to rank 0 while its owner record stands (rank 0 removes everything once
  // every rank said goodbye, or it stopped waiting). Once that record is gone or another run's, rank 0 has
  // removed the run already: whatever this rank wrote since is its own to remove.
  Status Leave() {
    auto held = ReadOwner();
    if (held && held->first.nonce == nonce_) return OkStatus();
    RETURN_IF_ERROR(RemoveNamespace(nonce_));
    RemoveIfEmpty();
    return OkStatus();
  }

  std::optional<std::pair<Owner, double>> ReadOwner() {
    auto text = ReadOwnerText();
    if (!text) return std::nullopt;
    auto owner = Owner::Decode(text->first);
    if (!owner) owner = Owner{};  // unreadable: judged by its age alone
    return std::make_pair(*owner, text->second);
  }
  static bool Stale(const std::pair<Owner, double>& held) {
    return held.second > static_cast<double>(kRunStaleAfter.count()) || held.first.GoneFromThisHost();
  }
  Status InUse(const Owner& owner, double age) const {
    return Unavailable("run id " + run_id_ + " in use at " + Describe() + " by " + owner.Describe(age) +
                       ": give this run another --run-id; if that run is gone, its id frees itself " +
                       std::to_string(kRunStaleAfter.count()) +
                       " s after its last heartbeat, or clear it now with: " + ClearCommand());
  }
  void StartHeartbeat() {
    heartbeat_ = std::thread([this] {
      std::unique_lock<std::mutex> lock(mu_);
      for (int beat = 1; !cv_.wait_for(lock, kRunHeartbeat, [this] { return stop_; }); ++beat) Beat(beat);
    });
  }
  ScopedStore scoped_;
  State state_ = State::kOpen;
  std::string nonce_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread heartbeat_;
};

class FileRunStore : public OwnedRunStore {
 public:
  FileRunStore(std::string run_id, int root_fd, std::string name, std::string dir, int dir_fd)
      : OwnedRunStore(std::move(run_id)),
        root_fd_(root_fd),
        name_(std::move(name)),
        dir_(std::move(dir)),
        files_(dir_fd, dir_) {
    set_base(&files_);
  }
  ~FileRunStore() override {
    StopHeartbeat();
    close(root_fd_);
  }
  std::string Describe() const override { return "file:" + dir_; }

 protected:
  std::optional<std::pair<std::string, double>> ReadOwnerText() override {
    auto age = files_.Age(kOwnerKey);
    auto text = files_.Get(kOwnerKey, milliseconds(0));
    if (!age.ok() || !text.ok()) return std::nullopt;
    return std::make_pair(std::string(text->begin(), text->end()), *age);
  }
  StatusOr<bool> CreateOwner(const std::string& record) override {
    Status s = files_.Set(kOwnerKey, {record.begin(), record.end()});
    if (s.ok()) return true;
    if (files_.Age(kOwnerKey).ok()) return false;
    return s;
  }
  Status DropOwner() override { return files_.Erase(kOwnerKey); }
  void Beat(int) override { (void)files_.Touch(kOwnerKey); }
  void RemoveAllBut(const std::string& nonce) override { files_.RemoveAllBut(nonce + "/", kOwnerKey); }
  Status RemoveNamespace(const std::string& nonce) override {
    files_.RemoveWithPrefix(nonce + "/");
    return OkStatus();
  }
  Status RemoveEverything() override {
    // A rank that checked the owner record before this sweep removed it may still land its last key between the
    // sweep and the rmdir: sweep again. What lands after the record is gone, its writer removes (Leave).
    int error = 0;
    for (int sweep = 0; sweep < 20; ++sweep) {
      files_.RemoveAllBut("", "");
      if (unlinkat(root_fd_, name_.c_str(), AT_REMOVEDIR) == 0 || errno == ENOENT) return OkStatus();
      error = errno;
      if (error != ENOTEMPTY && error != EEXIST) break;
      std::this_thread::sleep_for(milliseconds(5));
    }
    return Internal("cannot remove the run's rendezvous directory " + dir_ + ": " + std::strerror(error));
  }
  void RemoveIfEmpty() override { (void)unlinkat(root_fd_, name_.c_str(), AT_REMOVEDIR); }
  std::string ClearCommand() const override { return "rm -r -- '" + dir_ + "'"; }

 private:
  int root_fd_;
  std::string name_;
  std::string dir_;
  FileStore files_;
};

class RedisRunStore : public OwnedRunStore {
 public:
  RedisRunStore(std::string run_id, std::unique_ptr<RedisStore> redis, std::string prefix)
      : OwnedRunStore(std::move(run_id)),
        redis_(std::move(redis)),
        prefix_(std::move(prefix)),
        namespace_(prefix_, redis_.get()) {
    set_base(&namespace_);
  }
  ~RedisRunStore() override { StopHeartbeat(); }
  std::string Describe() const override { return redis_->Describe() + " " + prefix_; }

 protected:
  std::string OwnerKey() const { return prefix_ + "/" + kOwnerKey; }
  std::optional<std::pair<std::string, double>> ReadOwnerText() override {
    auto text = redis_->Get(OwnerKey(), milliseconds(0));
    if (!text.ok()) return std::nullopt;
    auto ttl = redis_->TtlMs(OwnerKey());
    const double left_s = ttl.ok() && *ttl >= 0 ? static_cast<double>(*ttl) / 1000 : 0;
    // The owner key lives kRunStaleAfter past its last heartbeat: its age is what has gone of that.
    return std::make_pair(std::string(text->begin(), text->end()),
                          std::max(0.0, static_cast<double>(kRunStaleAfter.count()) - left_s));
  }
  StatusOr<bool> CreateOwner(const std::string& record) override {
    return redis_->Create(OwnerKey(), {record.begin(), record.end()}, kRunStaleAfter);
  }
  Status DropOwner() override { return redis_->Delete(OwnerKey()); }
  void Beat(int beat) override {
    (void)redis_->Expire(OwnerKey(), kRunStaleAfter);
    const int rearm_every = static_cast<int>(std::chrono::seconds(kRedisKeyRearm) / kRunHeartbeat);
    if (beat % rearm_every == 0) (void)redis_->ExpireKeys(prefix_ + "/", kRedisKeyTtl);
  }
  void RemoveAllBut(const std::string& nonce) override {
    // A stale run's namespaces: every key of the run id but the owner and this nonce's.
    auto keys = redis_->ListKeys(prefix_ + "/");
    if (!keys.ok()) return;
    const std::string keep = prefix_ + "/" + nonce + "/";
    for (const std::string& key : *keys) {
      if (key != OwnerKey() && key.rfind(keep, 0) != 0) (void)redis_->Delete(key);
    }
  }
  Status RemoveNamespace(const std::string& nonce) override {
    return redis_->RemoveKeys(prefix_ + "/" + nonce + "/").status();
  }
  Status RemoveEverything() override { return redis_->RemoveKeys(prefix_ + "/").status(); }
  void RemoveIfEmpty() override {}  // a Redis prefix is nothing once its keys are gone
  std::string ClearCommand() const override {
    return "redis-cli -u " + redis_->Describe() + " --scan --pattern '" + prefix_ + "/*' | xargs -r redis-cli -u " +
           redis_->Describe() + " del (with -a PASSWORD if it has one)";
  }

 private:
  std::unique_ptr<RedisStore> redis_;
  std::string prefix_;
  PrefixStore namespace_;
};

}  // namespace

StatusOr<std::unique_ptr<RunStore>> OpenRunStore(const std::string& url, const std::string& run_id,
                                                 std::chrono::milliseconds connect_timeout) {
  const std::string name = "commbench-" + SafeName(run_id);
  if (url.rfind("file:", 0) == 0) {
    const std::string root = url.substr(5);
    const int root_fd = root.empty() ? -1 : open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root_fd < 0) {
      return InvalidArgument("--rendezvous " + RedactStoreUrl(url) +
                             ": not a directory (accepted: file:/shared/dir, a directory " + "every rank sees)");
    }
    const std::string dir = root + (root.back() == '/' ? "" : "/") + name;
    // Every rank tries to make it; whoever is first does. Opened without following a symlink, then trusted only
    // when it is this user's and nobody else may write it.
    bool made = mkdirat(root_fd, name.c_str(), 0700) == 0;
    if (!made && errno != EEXIST) {
      const int e = errno;
      close(root_fd);
      return Internal("--rendezvous: cannot create " + dir + ": " + std::strerror(e));
    }
    const int dir_fd = openat(root_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    auto checked = dir_fd < 0 ? OpenPrivateDirectory(dir, false) : CheckPrivateDirectory(dir_fd, dir, made);
    if (!checked.ok()) {
      close(root_fd);
      return Status(checked.status().code(), "--rendezvous " + RedactStoreUrl(url) + ": " + checked.status().message());
    }
    return std::unique_ptr<RunStore>(std::make_unique<FileRunStore>(run_id, root_fd, name, dir, *checked));
  }
  if (url.rfind("redis://", 0) == 0) {
    ASSIGN_OR_RETURN(RedisAddress address, ParseRedisUrl(url, std::getenv(kRedisPasswordVariable)));
    ASSIGN_OR_RETURN(std::unique_ptr<RedisStore> redis, RedisStore::Connect(address, connect_timeout));
    return std::unique_ptr<RunStore>(std::make_unique<RedisRunStore>(run_id, std::move(redis), name));
  }
  return InvalidArgument(
      "--rendezvous: unsupported store '" + RedactStoreUrl(url) +
      "' (accepted: file:/shared/dir, redis://HOST[:PORT][/DB], a user and password before HOST as in any URL)");
}

}  // namespace commbench
