#include "lib/rendezvous/run_store.h"

#include <cstdlib>
#include <filesystem>

#include "lib/rendezvous/redis_store.h"

namespace commbench {
namespace {

namespace fs = std::filesystem;

std::string SafeName(const std::string& run_id) {
  std::string out = run_id.empty() ? "default" : run_id;
  for (char& c : out) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-';
    if (!ok) c = '_';
  }
  return out;
}

class FileRunStore : public RunStore {
 public:
  explicit FileRunStore(std::string dir) : dir_(std::move(dir)), store_(NewFileStore(dir_)) {}
  Store* store() override { return store_.get(); }
  std::string Describe() const override { return "file:" + dir_; }
  Status Remove() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
    if (ec) return Internal("cannot remove the run's rendezvous directory " + dir_ + ": " + ec.message());
    return OkStatus();
  }

 private:
  std::string dir_;
  std::unique_ptr<Store> store_;
};

class RedisRunStore : public RunStore {
 public:
  RedisRunStore(std::unique_ptr<RedisStore> redis, std::string prefix)
      : redis_(std::move(redis)), prefix_(std::move(prefix)), scoped_(prefix_, redis_.get()) {}
  Store* store() override { return &scoped_; }
  std::string Describe() const override { return redis_->Describe() + " " + prefix_; }
  Status Remove() override { return redis_->RemoveKeys(prefix_ + "/").status(); }

 private:
  std::unique_ptr<RedisStore> redis_;
  std::string prefix_;
  PrefixStore scoped_;
};

}  // namespace

StatusOr<std::unique_ptr<RunStore>> OpenRunStore(const std::string& url, const std::string& run_id,
                                                 std::chrono::milliseconds connect_timeout) {
  const std::string name = "commbench-" + SafeName(run_id);
  if (url.rfind("file:", 0) == 0) {
    const std::string root = url.substr(5);
    std::error_code ec;
    if (root.empty() || !fs::is_directory(root, ec)) {
      return InvalidArgument("--rendezvous " + url + ": not a directory (accepted: file:/shared/dir, a directory " +
                             "every rank sees)");
    }
    const std::string dir = (fs::path(root) / name).string();
    fs::create_directories(dir, ec);  // every rank tries; whoever is first makes it
    if (ec && !fs::is_directory(dir)) return Internal("--rendezvous: cannot create " + dir + ": " + ec.message());
    return std::unique_ptr<RunStore>(std::make_unique<FileRunStore>(dir));
  }
  if (url.rfind("redis://", 0) == 0) {
    ASSIGN_OR_RETURN(RedisAddress address, ParseRedisUrl(url, std::getenv(kRedisPasswordVariable)));
    ASSIGN_OR_RETURN(std::unique_ptr<RedisStore> redis, RedisStore::Connect(address, connect_timeout));
    return std::unique_ptr<RunStore>(std::make_unique<RedisRunStore>(std::move(redis), name));
  }
  return InvalidArgument("--rendezvous: unsupported store '" + RedactSecrets(url) +
                         "' (accepted: file:/shared/dir, redis://[:PASSWORD@]HOST[:PORT][/DB])");
}

}  // namespace commbench
