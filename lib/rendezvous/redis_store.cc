#include "lib/rendezvous/redis_store.h"

#include <hiredis/hiredis.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "lib/rendezvous/run_store.h"

namespace commbench {
namespace {

using Reply = std::unique_ptr<redisReply, decltype(&freeReplyObject)>;

Reply Wrap(void *r) { return Reply(static_cast<redisReply *>(r), &freeReplyObject); }

bool ReadInt(const std::string &s, int lo, int hi, int *out) {
  if (s.empty() || s.size() > 9 || !std::all_of(s.begin(), s.end(), ::isdigit)) return false;
  int v = std::atoi(s.c_str());
  if (v < lo || v > hi) return false;
  *out = v;
  return true;
}

}  // namespace

std::string RedisAddress::Describe() const {
  const bool v6 = host.find(':') != std::string::npos;
  return "redis://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port) +
         (db ? "/" + std::to_string(db) : "");
}

StatusOr<RedisAddress> ParseRedisUrl(const std::string &url, const char *env_password) {
  const std::string shown = RedactStoreUrl(url);  // the whole userinfo, up to the last '@' as parsed below
  auto bad = [&shown](const std::string &why) {
    return InvalidArgument("--rendezvous '" + shown + "': " + why +
                           " (accepted: redis://HOST[:PORT][/DB], a user and password before HOST as in any "
                           "URL, or file:/shared/dir)");
  };
  const std::string scheme = "redis://";
  if (url.rfind(scheme, 0) != 0) return bad("not a redis:// URL");
  std::string rest = url.substr(scheme.size());
  RedisAddress a;
  size_t at = rest.rfind('@');
  if (at != std::string::npos) {
    std::string credentials = rest.substr(0, at);
    rest = rest.substr(at + 1);
    size_t colon = credentials.find(':');
    if (colon == std::string::npos) return bad("credentials must be USER:PASSWORD or :PASSWORD");
    a.user = credentials.substr(0, colon);
    a.password = credentials.substr(colon + 1);
  }
  if (a.password.empty() && env_password != nullptr) a.password = env_password;
  size_t slash = rest.find('/');
  if (slash != std::string::npos) {
    if (!ReadInt(rest.substr(slash + 1), 0, 65535, &a.db)) return bad("the database must be a number");
    rest = rest.substr(0, slash);
  }
  std::string port;
  if (!rest.empty() && rest.front() == '[') {
    size_t close = rest.find(']');
    if (close == std::string::npos) return bad("unclosed '[' in the host");
    a.host = rest.substr(1, close - 1);
    if (close + 1 < rest.size()) {
      if (rest[close + 1] != ':') return bad("expected ':PORT' after the address");
      port = rest.substr(close + 2);
    }
  } else {
    size_t colon = rest.find(':');
    a.host = rest.substr(0, colon);
    if (colon != std::string::npos) port = rest.substr(colon + 1);
  }
  if (a.host.empty()) return bad("no host");
  if (!port.empty() && !ReadInt(port, 1, 65535, &a.port)) return bad("the port must be 1..65535");
  return a;
}

struct RedisStore::Connection {
  std::mutex mu;  // hiredis contexts are not thread-safe; ranks that are threads
                  // of one process share a store
  redisContext *context = nullptr;
  ~Connection() {
    if (context) redisFree(context);
  }
};

RedisStore::RedisStore(RedisAddress address, std::unique_ptr<Connection> connection)
    : address_(std::move(address)), connection_(std::move(connection)) {}

RedisStore::~RedisStore() = default;

StatusOr<std::unique_ptr<RedisStore>> RedisStore::Connect(const RedisAddress &address,
                                                          std::chrono::milliseconds connect_timeout) {
  const std::string where = address.Describe();
  timeval tv{static_cast<time_t>(connect_timeout.count() / 1000),
             static_cast<suseconds_t>((connect_timeout.count() % 1000) * 1000)};
  auto c = std::make_unique<Connection>();
  c->context = redisConnectWithTimeout(address.host.c_str(), address.port, tv);
  if (c->context == nullptr) return Unavailable(where + ": cannot allocate a connection");
  if (c->context->err) return Unavailable(where + ": cannot connect: " + c->context->errstr);
  // Replies, once connected, may take as long as the server does; a dead server
  // must not hang a rank forever.
  timeval io{10, 0};
  redisSetTimeout(c->context, io);
  if (!address.password.empty()) {
    Reply r = address.user.empty()
                  ? Wrap(redisCommand(c->context, "AUTH %s", address.password.c_str()))
                  : Wrap(redisCommand(c->context, "AUTH %s %s", address.user.c_str(), address.password.c_str()));
    if (!r) return Unavailable(where + ": AUTH: " + c->context->errstr);
    if (r->type == REDIS_REPLY_ERROR) {
      return Unavailable(where + ": authentication failed (" + std::string(r->str, r->len) +
                         "); check the password in the URL or $" + kRedisPasswordVariable);
    }
  }
  Reply r = Wrap(redisCommand(c->context, "SELECT %d", address.db));
  if (!r) return Unavailable(where + ": " + c->context->errstr);
  if (r->type == REDIS_REPLY_ERROR) {
    std::string msg(r->str, r->len);
    if (msg.rfind("NOAUTH", 0) == 0) {
      return Unavailable(where + ": the server needs a password (redis://:PASSWORD@host:port or $" +
                         kRedisPasswordVariable + ")");
    }
    return Unavailable(where + ": SELECT " + std::to_string(address.db) + ": " + msg);
  }
  return std::unique_ptr<RedisStore>(new RedisStore(address, std::move(c)));
}

Status RedisStore::Set(const std::string &key, const std::vector<char> &value) {
  ASSIGN_OR_RETURN(bool created, Create(key, value, kRedisKeyTtl));
  if (!created) return Internal(Describe() + ": key '" + key + "' is already set");
  return OkStatus();
}

StatusOr<bool> RedisStore::Create(const std::string &key, const std::vector<char> &value,
                                  std::chrono::milliseconds ttl) {
  std::lock_guard<std::mutex> lock(connection_->mu);
  Reply r = Wrap(redisCommand(connection_->context, "SET %b %b NX PX %lld", key.data(), key.size(), value.data(),
                              value.size(), static_cast<long long>(ttl.count())));
  if (!r) return Unavailable(Describe() + ": cannot set '" + key + "': " + connection_->context->errstr);
  if (r->type == REDIS_REPLY_ERROR) {
    return Internal(Describe() + ": cannot set '" + key + "': " + std::string(r->str, r->len));
  }
  return r->type != REDIS_REPLY_NIL;
}

Status RedisStore::Expire(const std::string &key, std::chrono::milliseconds ttl) {
  std::lock_guard<std::mutex> lock(connection_->mu);
  Reply r = Wrap(redisCommand(connection_->context, "PEXPIRE %b %lld", key.data(), key.size(),
                              static_cast<long long>(ttl.count())));
  if (!r || r->type == REDIS_REPLY_ERROR) return Unavailable(Describe() + ": cannot re-arm '" + key + "'");
  return OkStatus();
}

StatusOr<int64_t> RedisStore::TtlMs(const std::string &key) {
  std::lock_guard<std::mutex> lock(connection_->mu);
  Reply r = Wrap(redisCommand(connection_->context, "PTTL %b", key.data(), key.size()));
  if (!r || r->type != REDIS_REPLY_INTEGER)
    return Unavailable(Describe() + ": cannot read the expiry of '" + key + "'");
  return static_cast<int64_t>(r->integer);
}

Status RedisStore::Delete(const std::string &key) {
  std::lock_guard<std::mutex> lock(connection_->mu);
  Reply r = Wrap(redisCommand(connection_->context, "DEL %b", key.data(), key.size()));
  if (!r || r->type == REDIS_REPLY_ERROR) return Unavailable(Describe() + ": cannot delete '" + key + "'");
  return OkStatus();
}

StatusOr<int64_t> RedisStore::ExpireKeys(const std::string &prefix, std::chrono::milliseconds ttl) {
  return ForEachKey(prefix, "PEXPIRE %b " + std::to_string(ttl.count()));
}

StatusOr<std::vector<char>> RedisStore::Get(const std::string &key, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto pause = std::chrono::milliseconds(2);
  while (true) {
    {
      std::lock_guard<std::mutex> lock(connection_->mu);
      Reply r = Wrap(redisCommand(connection_->context, "GET %b", key.data(), key.size()));
      if (!r) return Unavailable(Describe() + ": cannot get '" + key + "': " + connection_->context->errstr);
      if (r->type == REDIS_REPLY_STRING) return std::vector<char>(r->str, r->str + r->len);
      if (r->type == REDIS_REPLY_ERROR) {
        return Internal(Describe() + ": cannot get '" + key + "': " + std::string(r->str, r->len));
      }
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      return DeadlineExceeded(Describe() + ": key '" + key + "' did not appear within " +
                              std::to_string(timeout.count()) + " ms");
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
}

StatusOr<int64_t> RedisStore::RemoveKeys(const std::string &prefix) { return ForEachKey(prefix, "DEL %b"); }

StatusOr<std::vector<std::string>> RedisStore::ListKeys(const std::string &prefix) {
  std::vector<std::string> out;
  Status listed = ForEachKey(prefix, "", &out).status();
  if (!listed.ok()) return listed;
  return out;
}

StatusOr<int64_t> RedisStore::ForEachKey(const std::string &prefix, const std::string &command,
                                         std::vector<std::string> *listed) {
  std::lock_guard<std::mutex> lock(connection_->mu);
  // SCAN's MATCH is a glob: escape its special characters so that the prefix is
  // literal.
  std::string pattern;
  for (char ch : prefix) {
    if (ch == '*' || ch == '?' || ch == '[' || ch == ']' || ch == '\\') pattern += '\\';
    pattern += ch;
  }
  pattern += '*';
  int64_t done = 0;
  std::string cursor = "0";
  do {
    Reply r = Wrap(redisCommand(connection_->context, "SCAN %s MATCH %b COUNT 1000", cursor.c_str(), pattern.data(),
                                pattern.size()));
    if (!r || r->type != REDIS_REPLY_ARRAY || r->elements != 2) {
      return Unavailable(Describe() + ": cannot list the keys under '" + prefix + "'");
    }
    cursor.assign(r->element[0]->str, r->element[0]->len);
    const redisReply *keys = r->element[1];
    for (size_t i = 0; i < keys->elements; ++i) {
      if (listed) {
        listed->emplace_back(keys->element[i]->str, keys->element[i]->len);
        continue;
      }
      Reply d = Wrap(redisCommand(connection_->context, command.c_str(), keys->element[i]->str, keys->element[i]->len));
      if (d && d->type == REDIS_REPLY_INTEGER) done += d->integer;
    }
  } while (cursor != "0");
  return done;
}

}  // namespace commbench
