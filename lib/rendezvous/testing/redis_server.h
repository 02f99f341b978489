// A real redis-server child on a free 127.0.0.1 port for tests (with a password or without), stopped by its pid.
#pragma once

#include <sys/types.h>

#include <string>

namespace commbench::testing {

// A TCP port on 127.0.0.1 that nothing listens on (at the time of the call).
int FreeLoopbackPort();

class RedisServer {
 public:
  // Starts it and waits until it answers (about 5 s at most); started() says whether it did.
  explicit RedisServer(const std::string& password);
  ~RedisServer();
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  int port() const { return port_; }
  bool started() const { return pid_ > 0; }
  // "redis://[credentials]127.0.0.1:PORT"
  std::string Url(const std::string& credentials = "") const;

 private:
  int port_;
  pid_t pid_ = -1;
};

}  // namespace commbench::testing
