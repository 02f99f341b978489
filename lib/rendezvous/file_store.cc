#include <gloo/common/error.h>
#include <gloo/rendezvous/file_store.h>

#include <cstdlib>

#include "lib/rendezvous/redis_store.h"
#include "lib/rendezvous/store.h"

namespace commbench {
namespace {

// Wraps Gloo's FileStore (files named by key hash, written then renamed) and turns its exceptions into Status.
class FileStore : public Store {
 public:
  explicit FileStore(const std::string& dir) : dir_(dir), store_(dir) {}

  Status Set(const std::string& key, const std::vector<char>& value) override {
    try {
      store_.set(key, value);
      return OkStatus();
    } catch (const std::exception& e) {
      return Internal("file store " + dir_ + ": cannot set '" + key + "': " + e.what());
    }
  }

  StatusOr<std::vector<char>> Get(const std::string& key, std::chrono::milliseconds timeout) override {
    try {
      store_.wait({key}, timeout);
      return store_.get(key);
    } catch (const ::gloo::IoException& e) {
      return DeadlineExceeded("file store " + dir_ + ": key '" + key + "' did not appear within " +
                              std::to_string(timeout.count()) + " ms");
    } catch (const std::exception& e) {
      return Internal("file store " + dir_ + ": cannot get '" + key + "': " + e.what());
    }
  }

  std::string Describe() const override { return "file:" + dir_; }

 private:
  std::string dir_;
  ::gloo::rendezvous::FileStore store_;
};

}  // namespace

std::unique_ptr<Store> NewFileStore(const std::string& directory) { return std::make_unique<FileStore>(directory); }

StatusOr<std::unique_ptr<Store>> OpenStore(const std::string& url) {
  if (url.rfind("file:", 0) == 0) return NewFileStore(url.substr(5));
  if (url.rfind("redis://", 0) == 0) {
    ASSIGN_OR_RETURN(RedisAddress address, ParseRedisUrl(url, std::getenv(kRedisPasswordVariable)));
    ASSIGN_OR_RETURN(std::unique_ptr<RedisStore> store, RedisStore::Connect(address, std::chrono::seconds(10)));
    return std::unique_ptr<Store>(std::move(store));
  }
  return InvalidArgument("--rendezvous: unsupported store '" + RedactSecrets(url) +
                         "' (accepted: file:/shared/dir, redis://[:PASSWORD@]HOST[:PORT][/DB])");
}

}  // namespace commbench
