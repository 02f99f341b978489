// Redis as the rendezvous of ranks on many hosts (`--rendezvous
// redis://[:PASSWORD@]HOST[:PORT][/DB]`). Our own client over hiredis rather
// than Gloo's RedisStore: that one cannot authenticate and never removes its
// keys, and a run must leave a shared Redis as it found it. Passwords never
// reach a message: every error and every Describe() names the server without
// it, and RedactSecrets()/RedactStoreUrl() (lib/core/redact.h) scrub a command line or URL before it is shown.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "lib/core/redact.h"  // RedactSecrets, RedactStoreUrl: for every caller that shows a URL
#include "lib/core/status.h"
#include "lib/rendezvous/store.h"

namespace commbench {

struct RedisAddress {
  std::string host;
  int port = 6379;
  int db = 0;
  std::string user;              // Redis 6 ACL user; "" for the default user
  std::string password;          // "" for none
  std::string Describe() const;  // "redis://host:port[/db]", never the password
};

// The environment variable a password may come from instead of the URL (keeps
// it out of `ps` and shell history).
inline constexpr const char *kRedisPasswordVariable = "COMMBENCH_REDIS_PASSWORD";

// Parses "redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]" (HOST may be "[v6addr]");
// without a password in the URL, `env_password` (the variable's value, or
// nullptr) is used. Errors name the URL with its password masked.
StatusOr<RedisAddress> ParseRedisUrl(const std::string &url, const char *env_password);

class RedisStore : public Store {
 public:
  // Connects (and authenticates) within `connect_timeout`.
  static StatusOr<std::unique_ptr<RedisStore>> Connect(const RedisAddress &address,
                                                       std::chrono::milliseconds connect_timeout);
  ~RedisStore() override;

  // Keys are written once (SET NX: Internal "already set" otherwise) and expire after kRedisKeyTtl
  // (run_store.h) unless re-armed.
  Status Set(const std::string &key, const std::vector<char> &value) override;
  // Polls until the key exists: a few ms at first, backing off to 50 ms.
  StatusOr<std::vector<char>> Get(const std::string &key, std::chrono::milliseconds timeout) override;
  std::string Describe() const override { return address_.Describe(); }

  // Deletes every key that starts with `prefix` (a run's namespace, at its
  // end); the number removed.
  StatusOr<int64_t> RemoveKeys(const std::string &prefix);
  // Sets `key` unless it exists (then false), expiring after `ttl`.
  StatusOr<bool> Create(const std::string &key, const std::vector<char> &value, std::chrono::milliseconds ttl);
  Status Expire(const std::string &key, std::chrono::milliseconds ttl);
  // Milliseconds left before `key` expires; -1 without an expiry, -2 when it is not there.
  StatusOr<int64_t> TtlMs(const std::string &key);
  Status Delete(const std::string &key);
  // Every key that starts with `prefix`.
  StatusOr<std::vector<std::string>> ListKeys(const std::string &prefix);
  // Re-arms every key that starts with `prefix` to expire after `ttl`; the number re-armed.
  StatusOr<int64_t> ExpireKeys(const std::string &prefix, std::chrono::milliseconds ttl);

 private:
  struct Connection;
  RedisStore(RedisAddress address, std::unique_ptr<Connection> connection);
  // Runs `command` (a printf format with one %b, the key) on every key under `prefix`, or lists them in
  // `listed`; how many commands gave 1.
  StatusOr<int64_t> ForEachKey(const std::string &prefix, const std::string &command,
                               std::vector<std::string> *listed = nullptr);
  RedisAddress address_;
  std::unique_ptr<Connection> connection_;
};

}  // namespace commbench
