// Redis as the rendezvous of ranks on many hosts (`--rendezvous
// redis://[:PASSWORD@]HOST[:PORT][/DB]`). Our own client over hiredis rather
// than Gloo's RedisStore: that one cannot authenticate and never removes its
// keys, and a run must leave a shared Redis as it found it. Passwords never
// reach a message: every error and every Describe() names the server without
// it, and RedactSecrets() scrubs a command line before it is recorded.
#pragma once

#include <memory>
#include <string>

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

// `text` with the password of every URL in it (redis:// or a mistyped scheme)
// replaced by "***".
std::string RedactSecrets(const std::string &text);

class RedisStore : public Store {
 public:
  // Connects (and authenticates) within `connect_timeout`.
  static StatusOr<std::unique_ptr<RedisStore>> Connect(const RedisAddress &address,
                                                       std::chrono::milliseconds connect_timeout);
  ~RedisStore() override;

  Status Set(const std::string &key, const std::vector<char> &value) override;
  // Polls until the key exists: a few ms at first, backing off to 50 ms.
  StatusOr<std::vector<char>> Get(const std::string &key, std::chrono::milliseconds timeout) override;
  std::string Describe() const override { return address_.Describe(); }

  // Deletes every key that starts with `prefix` (a run's namespace, at its
  // end); the number removed.
  StatusOr<int64_t> RemoveKeys(const std::string &prefix);

 private:
  struct Connection;
  RedisStore(RedisAddress address, std::unique_ptr<Connection> connection);
  RedisAddress address_;
  std::unique_ptr<Connection> connection_;
};

}  // namespace commbench
